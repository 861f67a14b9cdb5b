import Foundation

/// The first form of sync's key wrapping (the `KeychainSync` module, DESIGN §12): its device identity keys were
/// wrapped by the device key alone (DESIGN §3). Sync now wraps them under the keybag's class keys through the
/// backend's file-key wrapping, and opens this form once, to move a sync state made before. The device key itself
/// never leaves this module.
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
