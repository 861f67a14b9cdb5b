/// Apple's message for the status codes a keychain tool meets: the texts of `SecErrorMessages.strings`, which
/// Apple builds from the comments in `SecBase.h`. `security error` prints them, and every failure line quotes one.
enum StatusMessages {
    /// The message for `status`; Apple's fallback `OSStatus <n>` for a code not listed.
    static func message(for status: Int32) -> String {
        messages[status] ?? "OSStatus \(status)"
    }

    private static let messages: [Int32: String] = [
        0: "No error.",
        -4: "Function or operation not implemented.",
        -34: "The disk is full.",
        -36: "I/O error.",
        -49: "File already open with write permission.",
        -50: "One or more parameters passed to a function were not valid.",
        -61: "Write permissions error.",
        -108: "Failed to allocate memory.",
        -128: "User canceled the operation.",
        -909: "Bad parameter or invalid state for operation.",
        -2070: "errSecInternalComponent",
        -34018: "A required entitlement isn't present.",
        -25291: "No keychain is available. You may need to restart your computer.",
        -25292: "This keychain cannot be modified.",
        -25293: "The user name or passphrase you entered is not correct.",
        -25294: "The specified keychain could not be found.",
        -25295: "The specified keychain is not a valid keychain file.",
        -25296: "A keychain with the same name already exists.",
        -25297: "The specified callback function is already installed.",
        -25298: "The specified callback function is not valid.",
        -25299: "The specified item already exists in the keychain.",
        -25300: "The specified item could not be found in the keychain.",
        -25301: "There is not enough memory available to use the specified item.",
        -25302: "This item contains information which is too large or in a format that cannot be displayed.",
        -25303: "The specified attribute does not exist.",
        -25304: "The specified item is no longer valid. It may have been deleted from the keychain.",
        -25305: "Unable to search the current keychain.",
        -25306: "The specified item does not appear to be a valid keychain item.",
        -25307: "A default keychain could not be found.",
        -25308: "User interaction is not allowed.",
        -25309: "The specified attribute could not be modified.",
        -25310: "This keychain was created by a different version of the system software and cannot be opened.",
        -25311: "This item specifies a key size which is too large or too small.",
        -25315: "User interaction is required, but is currently not allowed.",
        -25316: "The contents of this item cannot be retrieved.",
        -25317: "The contents of this item cannot be modified.",
        -25243: "The specified item has no access control.",
        -26275: "Unable to decode the provided data.",
    ]
}
