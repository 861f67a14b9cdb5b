import Foundation
import KeychainCore

/// A domain-separated BLAKE2b digest of public values (device ids, join codes): keyed hashing under an all-zero
/// key, which is plain BLAKE2b with the label in front, so every device computes the same digest.
enum PublicDigest {
    static func digest(_ label: String, _ bytes: Data, byteCount: Int = 32) throws(SyncError) -> Data {
        try keychain("cannot compute a digest") { () throws(EngineError) -> Data in
            let key = try SecretKey(copying: [UInt8](repeating: 0, count: SecretKey.byteCount))
            return try KeyedHash.hash(Data(label.utf8) + [0] + bytes, key: key, outputByteCount: byteCount)
        }
    }

    /// Lowercase hexadecimal.
    static func hex(_ bytes: Data) -> String {
        bytes.hexText()
    }
}
