import Foundation
import KeychainCore

// Apple's four keychain item functions, with Apple's signatures, semantics and status codes. Each is safe to call
// from any thread; calls go to ``SecItemKeychain/current()``: the process's keychain, or the one a test scoped.
// Every failure also records why (``SecCopyLastErrorMessage()``), naming the key or value at fault.

/// Adds an item described by `attributes` (`kSecClass`, attributes, `kSecValueData`) to the keychain.
///
/// Missing attributes take Apple's defaults: the caller's first access group, `kSecAttrAccessibleWhenUnlocked`, not
/// synchronizable. An item with the same primary key is `errSecDuplicateItem`; an access group the caller is not
/// entitled to is `errSecMissingEntitlement`. When `attributes` holds `kSecReturn…` keys and `result` is not `nil`,
/// `result` receives the new item as `SecItemCopyMatching` would return it; on failure it is set to `nil`.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemAdd", result) { () throws(EngineError) in
        try SecItemOperations.add(attributes)
    }
}

/// Finds the items `query` matches and returns what its `kSecReturn…` keys ask for through `result`.
///
/// The default limit is one. A limit of one returns one object, any other limit an array; with no match the status
/// is `errSecItemNotFound` and `result` is `nil` (never an empty array). A query without `kSecAttrSynchronizable` sees
/// only local items; `kSecAttrSynchronizableAny` sees both kinds. Items in access groups the caller lacks are not
/// found. `kSecValueData` in the query is not a match criterion.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run("SecItemCopyMatching", result) { () throws(EngineError) in
        try SecItemOperations.copyMatching(query)
    }
}

/// Changes every item `query` matches to carry `attributesToUpdate` (attributes and `kSecValueData`), all or
/// nothing.
///
/// The query takes no `kSecReturn…` or `kSecMatch…` keys (`errSecParam`); no match is `errSecItemNotFound`; a change
/// that moves an item onto another's primary key is `errSecDuplicateItem`. The modification date becomes now.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemUpdate", nil) { () throws(EngineError) -> CFTypeRef? in
        try SecItemOperations.update(query, with: attributesToUpdate)
        return nil
    }
}

/// Deletes every item `query` matches, all or nothing.
///
/// The query takes no `kSecMatch…` keys, a match limit included (`errSecParam`); no match is `errSecItemNotFound`.
/// `kSecValueData` in the query is not a match criterion, so a dictionary built for `SecItemAdd` deletes the item it
/// would add.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run("SecItemDelete", nil) { () throws(EngineError) -> CFTypeRef? in
        try SecItemOperations.delete(query)
        return nil
    }
}

/// What every SecItem function does around its operation: map the engine's error to its status, record the reason,
/// and set the result pointer (to `nil` on failure).
enum SecItemCall {
    static func run(
        _ function: String, _ result: UnsafeMutablePointer<CFTypeRef?>?,
        _ operation: () throws(EngineError) -> CFTypeRef?
    ) -> OSStatus {
        do throws(EngineError) {
            let object = try operation()
            result?.pointee = object
            LastErrorMessage.record(nil)
            return errSecSuccess
        } catch {
            result?.pointee = nil
            LastErrorMessage.record("\(function): \(error.message) (\(error.code.rawValue))")
            return error.code.rawValue
        }
    }
}
