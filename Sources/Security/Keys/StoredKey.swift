import Foundation
import KeychainCore
import KeychainKeys
import KeychainPrompts

/// A private key item that is not extractable, as a `SecKey` refers to it: the item, the keychain and caller that
/// found it, and the authentication options of the lookup (its `LAContext`, what may be asked), which every use of
/// the key reuses, as Apple's keys keep the context they were found with.
struct StoredKey: Sendable {
    /// The key item.
    let reference: PersistentReference
    /// Where it is and who uses it.
    let keychain: SecItemKeychain
    /// How the user is asked when the key's access control needs it.
    let authentication: AuthenticationLoop.Options

    /// Runs `use` on the key where it is stored: keychaind for its clients, this process's engine otherwise.
    func use(_ use: KeyUse) throws(EngineError) -> Data {
        let query = ItemQuery(itemClass: .key, synchronizable: .any, persistentReference: reference)
        return try AuthenticationLoop.perform(authentication, backend: keychain.backend) {
            (authentication) throws(EngineError) -> Data in
            var query = query
            query.authentication = authentication
            return try keychain.backend.useKey(query, use, for: keychain.caller)
        }
    }
}
