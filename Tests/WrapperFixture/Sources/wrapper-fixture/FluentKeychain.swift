import Foundation
import Security

/// A wrapper configured by copy-returning modifiers, whose attribute getter asks for `kSecReturnRef` with every
/// other return key, whose queries span synchronizable and local items, and whose macOS `removeAll` passes
/// `kSecMatchLimitAll`.
struct FluentKeychain {
    var service: String
    var accessible: CFString = kSecAttrAccessibleAfterFirstUnlock
    var isSynchronizable = false

    func accessibility(_ accessible: CFString) -> FluentKeychain {
        var copy = self
        copy.accessible = accessible
        return copy
    }

    func synchronizable(_ synchronizable: Bool) -> FluentKeychain {
        var copy = self
        copy.isSynchronizable = synchronizable
        return copy
    }

    private func query() -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ]
        #if os(macOS)
            query[kSecUseDataProtectionKeychain as String] = true
        #else
            query[kSecUseDataProtectionKeychain as String] = kCFBooleanTrue
        #endif
        return query
    }

    /// Adds or replaces the value under `key`; the status, as the wrapper's `throws` would carry it.
    func set(_ value: String, key: String) -> OSStatus {
        var query = query()
        query[kSecAttrAccount as String] = key
        var status = SecItemCopyMatching(query as CFDictionary, nil)
        switch status {
        case errSecSuccess:
            let changes: [String: Any] = [kSecValueData as String: Data(value.utf8)]
            status = SecItemUpdate(query as CFDictionary, changes as CFDictionary)
        case errSecItemNotFound:
            query[kSecValueData as String] = Data(value.utf8)
            query[kSecAttrAccessible as String] = accessible
            query[kSecAttrSynchronizable as String] = isSynchronizable ? kCFBooleanTrue : kCFBooleanFalse
            status = SecItemAdd(query as CFDictionary, nil)
        default: break
        }
        return status
    }

    func get(_ key: String) -> String? {
        var query = query()
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecAttrAccount as String] = key
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    /// Everything the keychain says about `key`: the wrapper's `Attributes`.
    func attributes(_ key: String) -> [String: Any]? {
        var query = query()
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecReturnRef as String] = kCFBooleanTrue
        query[kSecReturnPersistentRef as String] = kCFBooleanTrue
        query[kSecAttrAccount as String] = key
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    /// The items as a reference dictionary alone (no other return key).
    func references() -> [[String: Any]] {
        var query = query()
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnRef as String] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
        return result as? [[String: Any]] ?? []
    }

    func allKeys() -> [String] {
        var query = query()
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let items = result as? [[String: Any]]
        else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }

    func removeAll() -> OSStatus {
        var query = query()
        #if !os(iOS) && !os(watchOS) && !os(tvOS)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
        #endif
        let status = SecItemDelete(query as CFDictionary)
        return status == errSecItemNotFound ? errSecSuccess : status
    }
}
