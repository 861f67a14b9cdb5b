import Foundation
import LocalAuthentication
import Security
import TestSupport
import Testing

@testable import KeychainCore

/// Issue 20, item 10: `LAContext` is an `NSObject` subclass, equal and hashable by identity as Apple's is, so
/// keychain code that compares contexts or puts one in a `[String: AnyHashable]` query compiles and works.
@Suite("LAContext is an NSObject: equal and hashable by identity")
struct LAContextIdentityTests {
    @Test("Two contexts are different objects; one is equal to itself, as a key, in a set and as AnyHashable")
    func identity() {
        let first = LAContext()
        let second = LAContext()
        let same = first
        #expect(first == same)
        #expect(first != second)
        #expect(first.isEqual(same) && !first.isEqual(second))
        #expect(first.hashValue == same.hashValue)
        let contexts: Set<LAContext> = [first, second, same]
        #expect(contexts.count == 2)
        let byContext: [LAContext: String] = [first: "first", second: "second"]
        #expect(byContext[same] == "first")
        let object: NSObject = first
        #expect(object == same)
        #expect(AnyHashable(first) == AnyHashable(same) && AnyHashable(first) != AnyHashable(second))
    }

    @Test("A context in a [String: AnyHashable] query is the context the read uses: its credential opens the item")
    func inAnyHashableQuery() throws {
        let keychain = try TestSecItemKeychain()
        let context = LAContext(authenticationContext: scriptedContext(ScriptedPrompter([])))
        #expect(context.setCredential(Data("hunter2".utf8), type: .applicationPassword))
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .applicationPassword, nil))
            let add: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dave",
                kSecValueData as String: Data("token".utf8), kSecAttrAccessControl as String: control,
                kSecUseAuthenticationContext as String: context,
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let query: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dave",
                kSecReturnData as String: true, kSecUseAuthenticationContext as String: context,
            ]
            #expect(query[kSecUseAuthenticationContext as String] == AnyHashable(context))
            var item: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
            #expect(item as? Data == Data("token".utf8))
            // Another context, without the credential, asks (and here cannot): the context in the query counts.
            var other = query
            other[kSecUseAuthenticationContext as String] = LAContext(
                authenticationContext: scriptedContext(ScriptedPrompter([.unavailable])))
            #expect(SecItemCopyMatching(other as CFDictionary, &item) == errSecInteractionNotAllowed)
        }
    }
}
