import Foundation
import Security

/// A wrapper that builds its queries as `[String: AnyHashable]`, an access control included, and compares
/// statuses with `noErr`.
struct HashableQueryKeychain {
    var service: String
    var lastResultCode: OSStatus = noErr

    /// The base query, with an access control that asks for the accessibility alone.
    func baseQuery() -> [String: AnyHashable]? {
        var error: Unmanaged<CFError>?
        guard
            let accessControl = SecAccessControlCreateWithFlags(
                kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [], &error)
        else { return nil }
        return [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String: service,
            kSecAttrAccessControl as String: accessControl,
        ]
    }

    mutating func set(_ value: Data?, forKey key: String) -> Bool {
        guard var query = baseQuery() else { return false }
        query[kSecAttrAccount as String] = key
        _ = SecItemDelete(query as CFDictionary)
        if let value { query[kSecValueData as String] = value }
        lastResultCode = SecItemAdd(query as CFDictionary, nil)
        return lastResultCode == noErr
    }

    /// The data alone: Apple returns empty data for an item added without any.
    mutating func data(forKey key: String) -> Data? {
        guard var query = baseQuery() else { return nil }
        query[kSecAttrAccount as String] = key
        query[kSecReturnData as String] = true
        var result: CFTypeRef?
        lastResultCode = SecItemCopyMatching(query as CFDictionary, &result)
        return lastResultCode == noErr ? result as? Data : nil
    }

    /// The attributes and the data in one dictionary.
    mutating func item(forKey key: String) -> [String: Any]? {
        guard var query = baseQuery() else { return nil }
        query[kSecAttrAccount as String] = key
        query[kSecReturnData as String] = true
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        lastResultCode = SecItemCopyMatching(query as CFDictionary, &result)
        return lastResultCode == noErr ? result as? [String: Any] : nil
    }
}

/// The error an invalid accessibility gives, read with CoreFoundation's error functions.
func accessControlError() -> (code: CFIndex, domain: String, description: String, userInfo: [String: Any])? {
    var error: Unmanaged<CFError>?
    let control = SecAccessControlCreateWithFlags(nil, "sometimes" as CFString, .userPresence, &error)
    guard control == nil, let cfError = error?.takeRetainedValue() else { return nil }
    let userInfo = CFErrorCopyUserInfo(cfError) as? [String: Any] ?? [:]
    return (
        CFErrorGetCode(cfError), CFErrorGetDomain(cfError) as String, CFErrorCopyDescription(cfError) as String,
        userInfo
    )
}

/// A random key, as wrappers make one for encrypting what they store.
func randomKey() -> Data? {
    var bytes = [UInt8](repeating: 0, count: 32)
    let status = SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
    return status == errSecSuccess ? Data(bytes) : nil
}

/// The service name wrappers default to: the bundle identifier, else a fixed name.
func defaultServiceName() -> String {
    Bundle.main.infoDictionary?[kCFBundleIdentifierKey as String] as? String ?? "wrapper-fixture"
}
