/// The `OSStatus` codes the tool itself reports (the engine's come with its errors).
enum Status {
    /// `errSecItemNotFound`: exit status 44.
    static let itemNotFound: Int32 = -25300
    /// `errSecDuplicateItem`: exit status 45.
    static let duplicateItem: Int32 = -25299
    /// `errSecInteractionNotAllowed`: exit status 36.
    static let interactionNotAllowed: Int32 = -25308
    /// `errSecNoSuchKeychain`: exit status 50.
    static let noSuchKeychain: Int32 = -25294
    /// `errSecDuplicateKeychain`: exit status 48.
    static let duplicateKeychain: Int32 = -25296
    /// `errSecUserCanceled`: exit status 128.
    static let userCanceled: Int32 = -128
    /// `errSecIO`: exit status 220.
    static let ioError: Int32 = -36
    /// `errSecParam`: exit status 206.
    static let param: Int32 = -50
    /// `errSecDecode`: exit status 93.
    static let decode: Int32 = -26275
}
