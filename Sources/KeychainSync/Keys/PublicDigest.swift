import Foundation
import KeychainCore

/// A domain-separated BLAKE2b digest of public values (device ids, join codes): keyed hashing under an all-zero
/// key, which is plain BLAKE2b with the label in front, so every device computes the same digest.
enum PublicDigest {
    static func digest(_ label: String, _ bytes: Data, byteCount: Int = 32) throws(SyncError) -> Data {
        try keychain("cannot compute a digest") { () throws(EngineError) -> Data in
            let key = try zeroKey.get()
            return try KeyedHash.hash(Data(label.utf8) + [0] + bytes, key: key, outputByteCount: byteCount)
        }
    }

    /// The all-zero key, made once: it is public, and a key in guarded memory costs several system calls to make
    /// (the profile of a sync pass found one made per record hashed).
    private static let zeroKey = Result { () throws(EngineError) -> SecretKey in
        try SecretKey(copying: [UInt8](repeating: 0, count: SecretKey.byteCount))
    }

    /// Lowercase hexadecimal.
    static func hex(_ bytes: Data) -> String {
        bytes.hexText()
    }
}
