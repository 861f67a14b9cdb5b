import Foundation
import KeychainCore

/// The header of a protected file (format version 1), all integers little-endian:
///
/// | bytes | field |
/// |---|---|
/// | 4 | magic `SKPF` |
/// | 1 | format version, 1 |
/// | 1 | keybag class of the file key (``FileKeyClass`` raw value) |
/// | 4 | plaintext bytes per chunk |
/// | 16 | keybag identifier |
/// | 16 | file identifier (random) |
/// | 2 | wrapped key length *n* |
/// | *n* | the file key, wrapped by the keybag (bound to the 42 bytes above) |
/// | 24 | secretstream header |
/// | 32 | header tag: keyed BLAKE2b of everything above, under a key derived from `dk` |
///
/// The body follows: the plaintext in chunks of exactly the chunk size (the last one shorter, possibly empty only
/// for an empty file), each sealed as a secretstream message, the last one with the final tag. The first chunk's
/// associated data is ``streamBinding`` (magic, version and file identifier), so a body moved under another header
/// fails even before the key differs. Changing the class rewraps the key and rewrites the header only: the body
/// does not depend on the class.
struct FileHeader {
    static let magic: [UInt8] = Array("SKPF".utf8)
    static let version: UInt8 = 1
    /// The size of the fields the wrapped key is bound to (everything before its length).
    static let fixedByteCount = 42
    static let identifierByteCount = 16
    static let tagByteCount = 32
    /// The longest wrapped key the reader accepts (class B's sealed key is 104 bytes).
    static let maximumWrappedKeyByteCount = 256
    /// The chunk sizes the reader accepts: enough to bound a reader's memory, whatever a file says.
    static let chunkByteCountRange = 1024...(1 << 20)

    var keyClass: FileKeyClass
    var chunkByteCount: Int
    var keybagID: UUID
    var fileID: [UInt8]
    var wrappedKey: Data
    var streamHeader: [UInt8]

    /// The fields the wrapped key is bound to.
    var fixedFields: [UInt8] {
        var bytes = Self.magic
        bytes.append(Self.version)
        bytes.append(keyClass.rawValue)
        bytes.append(littleEndian: UInt32(chunkByteCount))
        withUnsafeBytes(of: keybagID.uuid) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: fileID)
        return bytes
    }

    /// Every byte before the tag.
    var taggedBytes: [UInt8] {
        var bytes = fixedFields
        bytes.append(littleEndian: UInt16(wrappedKey.count))
        bytes.append(contentsOf: wrappedKey)
        bytes.append(contentsOf: streamHeader)
        return bytes
    }

    /// The associated data of the first chunk: what ties a body to its header and survives a class change.
    var streamBinding: [UInt8] { Self.magic + [Self.version] + fileID }

    /// The whole header, tagged by `backend`.
    func encoded(tag backend: any KeychainBackend) throws(EngineError) -> [UInt8] {
        let bytes = taggedBytes
        return bytes + Array(try backend.fileHeaderTag(for: bytes))
    }

    /// Reads and checks a header: its format, its keybag, then its tag. Every failure is
    /// ``FileProtectionError/decode`` naming `file`.
    static func read(
        from file: Descriptor, backend: any KeychainBackend
    ) throws(FileProtectionError) -> FileHeader {
        let path = file.path
        func damaged(_ reason: String) -> FileProtectionError {
            FileProtectionError(.decode, "\(path): \(reason)")
        }
        let fixed = try file.readBytes(count: fixedByteCount + 2)
        guard fixed.starts(with: magic) else {
            throw damaged("is not a protected file (it does not start with the SKPF header)")
        }
        guard fixed.count == fixedByteCount + 2 else { throw damaged("the protected file's header is truncated") }
        guard fixed[4] == version else { throw damaged("the protected file has format version \(fixed[4]), not 1") }
        guard let keyClass = FileKeyClass(rawValue: fixed[5]) else {
            throw damaged("the protected file's header names an unknown protection class \(fixed[5])")
        }
        let chunkByteCount = Int(fixed.littleEndian(UInt32.self, at: 6))
        guard chunkByteCountRange.contains(chunkByteCount) else {
            throw damaged("the protected file's chunk size \(chunkByteCount) is out of range")
        }
        let keybagID = fixed[10..<26].withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        let wrappedCount = Int(fixed.littleEndian(UInt16.self, at: fixedByteCount))
        guard wrappedCount <= maximumWrappedKeyByteCount else {
            throw damaged("the protected file's wrapped key length \(wrappedCount) is out of range")
        }
        let restCount = wrappedCount + SecretStream.headerByteCount + tagByteCount
        let rest = try file.readBytes(count: restCount)
        guard rest.count == restCount else { throw damaged("the protected file's header is truncated") }
        let header = FileHeader(
            keyClass: keyClass, chunkByteCount: chunkByteCount, keybagID: keybagID,
            fileID: Array(fixed[26..<fixedByteCount]), wrappedKey: Data(rest[0..<wrappedCount]),
            streamHeader: Array(rest[wrappedCount..<(wrappedCount + SecretStream.headerByteCount)]))
        let ours: UUID
        let isTagValid: Bool
        do throws(EngineError) {
            ours = try backend.keybagStatus().keybagID
            isTagValid = try backend.isValidFileHeaderTag(
                Data(rest[(rest.count - tagByteCount)...]), for: header.taggedBytes)
        } catch {
            throw FileProtectionError(error, path: path)
        }
        guard ours == keybagID else {
            throw damaged(
                "the file was protected by another keychain (keybag \(keybagID.uuidString), this one is "
                    + "\(ours.uuidString))")
        }
        guard isTagValid else { throw damaged("the protected file's header was altered") }
        return header
    }
}

extension [UInt8] {
    /// Appends an integer's little-endian bytes.
    fileprivate mutating func append<T: FixedWidthInteger>(littleEndian value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// The little-endian integer at `offset`.
    fileprivate func littleEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        self[offset..<(offset + MemoryLayout<T>.size)].withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
    }
}
