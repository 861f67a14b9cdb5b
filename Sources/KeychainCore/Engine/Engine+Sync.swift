import Foundation

/// What sync (the `KeychainSync` module, DESIGN §12) needs from a keychain directory's device key: its device
/// identity keys are wrapped by the device key (DESIGN §3), so a copy of the sync state without the device key
/// opens nothing. The device key itself never leaves this module.
package enum DeviceKeyWrapping {
    /// Seals `key` under a key derived from the device key of the keychain in `directory`, binding `purpose`.
    package static func wrap(_ key: SecretKey, purpose: String, in directory: URL) throws(EngineError) -> Data {
        try AEAD.seal(key: key, under: try wrappingKey(in: directory), associatedData: Array(purpose.utf8))
    }

    /// Opens a key sealed by ``wrap(_:purpose:in:)`` with the same purpose and keychain.
    package static func unwrap(_ wrapped: Data, purpose: String, in directory: URL) throws(EngineError) -> SecretKey {
        try AEAD.open(key: wrapped, under: try wrappingKey(in: directory), associatedData: Array(purpose.utf8))
    }

    private static func wrappingKey(in directory: URL) throws(EngineError) -> SecretKey {
        guard let deviceKey = try DeviceKey.existing(in: KeychainDirectory(url: directory)) else {
            throw EngineError(.noSuchKeychain, "no keychain (device key) in \(directory.path)")
        }
        return try KeyedHash.deriveKey(from: deviceKey, context: "swift-keychain sync identity wrap v1")
    }
}
