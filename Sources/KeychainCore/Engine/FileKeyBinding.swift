import Foundation

/// The two forms of a wrapped file key, told apart by their length: bound to no access group (the key sealed as
/// it is, 72 bytes, or 104 for class B), or bound to one (a marker byte, the group's 16-byte blind-index hash, then
/// the key sealed with that hash in its associated data: 17 bytes more). Files protected before keys were bound
/// carry the first form and keep opening.
struct FileKeyBinding {
    /// The first byte of a group-bound wrapped key.
    static let marker: UInt8 = 0x47

    /// The bound group's blind-index hash, or `nil` for a key bound to none.
    let groupHash: Data?
    /// The sealed key.
    let inner: Data

    /// Splits `wrapped`; any other length or marker is ``EngineError/Code/decode``.
    init(_ wrapped: Data, for fileClass: FileKeyClass) throws(EngineError) {
        let sealed =
            fileClass == .classB ? PublicKeySeal.sealedByteCount : AEAD.overhead + SecretKey.byteCount
        let hashCount = BlindIndex.attributeHashByteCount
        let bytes = Data(wrapped)  // indices from zero, whatever slice it was
        if bytes.count == sealed {
            groupHash = nil
            inner = bytes
        } else if bytes.count == 1 + hashCount + sealed, bytes.first == Self.marker {
            groupHash = bytes.subdata(in: 1..<(1 + hashCount))
            inner = bytes.subdata(in: (1 + hashCount)..<bytes.count)
        } else {
            throw .decode("the protected file's wrapped key has an unknown form (\(wrapped.count) bytes)")
        }
    }
}
