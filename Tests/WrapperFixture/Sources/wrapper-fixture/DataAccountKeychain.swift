import Foundation
import Security

/// A wrapper that keys every item by its key's UTF-8 bytes: `kSecAttrAccount` and `kSecAttrGeneric` are `Data`, and
/// its macOS branch removes everything with `kSecMatchLimitAll`.
final class DataAccountKeychain {
    let serviceName: String

    init(serviceName: String) {
        self.serviceName = serviceName
    }

    private func query(forKey key: String) -> [String: Any] {
        let encodedIdentifier: Data? = key.data(using: String.Encoding.utf8)
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        query[kSecAttrService as String] = serviceName
        query[kSecAttrGeneric as String] = encodedIdentifier
        query[kSecAttrAccount as String] = encodedIdentifier
        return query
    }

    @discardableResult
    func set(_ value: Data, forKey key: String, accessibility: CFString = kSecAttrAccessibleWhenUnlocked) -> Bool {
        var query = query(forKey: key)
        query[kSecValueData as String] = value
        query[kSecAttrAccessible as String] = accessibility
        let status: OSStatus = SecItemAdd(query as CFDictionary, nil)
        if status == errSecSuccess { return true }
        if status == errSecDuplicateItem { return update(value, forKey: key) }
        return false
    }

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        guard let data = value.data(using: .utf8) else { return false }
        return set(data, forKey: key)
    }

    private func update(_ value: Data, forKey key: String) -> Bool {
        let changes = [kSecValueData as String: value]
        let status: OSStatus = SecItemUpdate(query(forKey: key) as CFDictionary, changes as CFDictionary)
        return status == errSecSuccess
    }

    func data(forKey key: String) -> Data? {
        var query = query(forKey: key)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return status == noErr ? result as? Data : nil
    }

    func string(forKey key: String) -> String? {
        data(forKey: key).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The keys, read back from the `Data` accounts the items were added with.
    func allKeys() -> Set<String> {
        // swift-format-ignore: NeverForceUnwrap
        // The SDK imports kCFBooleanTrue as an implicitly unwrapped optional, and wrappers unwrap it.
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: serviceName,
            kSecReturnAttributes as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { return [] }
        var keys = Set<String>()
        if let results = result as? [[AnyHashable: Any]] {
            for attributes in results {
                if let accountData = attributes[kSecAttrAccount as String] as? Data,
                    let key = String(data: accountData, encoding: String.Encoding.utf8)
                {
                    keys.insert(key)
                }
            }
        }
        return keys
    }

    @discardableResult
    func removeObject(forKey key: String) -> Bool {
        SecItemDelete(query(forKey: key) as CFDictionary) == errSecSuccess
    }

    @discardableResult
    func removeAllKeys() -> Bool {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        query[kSecAttrService as String] = serviceName
        #if !os(iOS)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
        #endif
        let status: OSStatus = SecItemDelete(query as CFDictionary)
        return status == errSecSuccess
    }
}
