import Foundation
import Security
import Testing

/// `noErr`, from MacTypes on Apple's platforms: the status keychain wrappers compare with.
@Suite struct NoErrTests {
    @Test func noErrIsSuccess() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            var lastResultCode: OSStatus = noErr
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"]
            lastResultCode = SecItemAdd(query as CFDictionary, nil)
            #expect(lastResultCode == noErr)
            lastResultCode = SecItemAdd(query as CFDictionary, nil)
            #expect(lastResultCode != noErr && lastResultCode == errSecDuplicateItem)
        }
        #expect(noErr == 0 && noErr == errSecSuccess)
    }
}

/// CoreFoundation's error functions on the `CFError` alias (`NSError`), and its error and bundle keys: keychain code
/// reads `SecAccessControlCreateWithFlags`'s errors with them, and users cannot import CoreFoundation beside
/// `Security`.
@Suite struct CoreFoundationNameTests {
    @Test func errorFunctionsReadAnAccessControlError() throws {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "never" as CFString, [], &error) == nil)
        let cfError = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetCode(cfError) == CFIndex(errSecParam))
        #expect(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String)
        #expect(CFErrorGetDomain(cfError) as String == NSOSStatusErrorDomain)
        let userInfo = try #require(CFErrorCopyUserInfo(cfError) as? [String: Any])
        #expect((userInfo[kCFErrorLocalizedDescriptionKey as String] as? String)?.contains("never") == true)
        #expect((CFErrorCopyDescription(cfError) as String).contains("never"))
        #expect(CFErrorCopyFailureReason(cfError) == nil && CFErrorCopyRecoverySuggestion(cfError) == nil)
    }

    @Test func createdErrorsRoundTrip() throws {
        let userInfo: [String: Any] = [
            kCFErrorLocalizedDescriptionKey as String: "it failed",
            kCFErrorLocalizedFailureReasonKey as String: "because",
            kCFErrorLocalizedRecoverySuggestionKey as String: "retry",
        ]
        let error: CFError = try #require(CFErrorCreate(nil, kCFErrorDomainPOSIX, 2, userInfo as CFDictionary))
        #expect(CFErrorGetDomain(error) as String == NSPOSIXErrorDomain && CFErrorGetCode(error) == 2)
        #expect(CFErrorCopyDescription(error) as String == "it failed")
        #expect(CFErrorCopyFailureReason(error) as String? == "because")
        #expect(CFErrorCopyRecoverySuggestion(error) as String? == "retry")
        #expect((error as Error as NSError).code == 2)
    }

    /// The keys are Foundation's own names, so `NSError` and `Bundle` read them.
    @Test func keysHaveApplesRawValues() {
        let pairs: [(CFString, String)] = [
            (kCFErrorDomainOSStatus, "NSOSStatusErrorDomain"), (kCFErrorDomainPOSIX, "NSPOSIXErrorDomain"),
            (kCFErrorDomainMach, "NSMachErrorDomain"), (kCFErrorDomainCocoa, "NSCocoaErrorDomain"),
            (kCFErrorLocalizedDescriptionKey, NSLocalizedDescriptionKey),
            (kCFErrorLocalizedFailureReasonKey, NSLocalizedFailureReasonErrorKey),
            (kCFErrorLocalizedRecoverySuggestionKey, NSLocalizedRecoverySuggestionErrorKey),
            (kCFErrorLocalizedFailureKey, "NSLocalizedFailure"), (kCFErrorDescriptionKey, "NSDescription"),
            (kCFErrorUnderlyingErrorKey, NSUnderlyingErrorKey), (kCFErrorURLKey, "NSURL"),
            (kCFErrorFilePathKey, "NSFilePath"), (kCFBundleIdentifierKey, "CFBundleIdentifier"),
            (kCFBundleNameKey, "CFBundleName"), (kCFBundleVersionKey, "CFBundleVersion"),
            (kCFBundleExecutableKey, "CFBundleExecutable"),
            (kCFBundleInfoDictionaryVersionKey, "CFBundleInfoDictionaryVersion"),
            (kCFBundleDevelopmentRegionKey, "CFBundleDevelopmentRegion"),
            (kCFBundleLocalizationsKey, "CFBundleLocalizations"),
        ]
        for (constant, raw) in pairs { #expect(constant as String == raw) }
        let info: [String: Any] = ["CFBundleIdentifier": "com.example.app"]
        #expect(info[kCFBundleIdentifierKey as String] as? String == "com.example.app")
    }
}

/// `SecRandomCopyBytes` on libsodium's random bytes.
@Suite struct SecRandomTests {
    @Test func fillsTheBufferWithRandomBytes() {
        var first = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        var second = Data(count: 32)
        let status = second.withUnsafeMutableBytes { buffer in
            SecRandomCopyBytes(kSecRandomDefault, buffer.count, buffer.baseAddress!)
        }
        #expect(status == errSecSuccess)
        #expect(first != [UInt8](repeating: 0, count: 32) && Data(first) != second)
    }

    @Test func aNegativeCountIsAParamErrorAndWritesNothing() {
        var bytes = [UInt8](repeating: 7, count: 4)
        #expect(SecRandomCopyBytes(kSecRandomDefault, -1, &bytes) == errSecParam)
        #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &bytes) == errSecSuccess)
        #expect(bytes == [7, 7, 7, 7])
    }
}

/// `SecAccessControl` is `Hashable`, as every CF type is, so it sits in a `[String: AnyHashable]` query.
@Suite struct AccessControlHashableTests {
    func control(_ accessible: CFString, _ flags: SecAccessControlCreateFlags = []) throws -> SecAccessControl {
        try #require(SecAccessControlCreateWithFlags(nil, accessible, flags, nil))
    }

    @Test func equalWhenAccessibilityAndFlagsAre() throws {
        let first = try control(kSecAttrAccessibleWhenUnlocked, .userPresence)
        #expect(first == (try control(kSecAttrAccessibleWhenUnlocked, .userPresence)))
        #expect(first.hashValue == (try control(kSecAttrAccessibleWhenUnlocked, .userPresence)).hashValue)
        #expect(first != (try control(kSecAttrAccessibleWhenUnlocked)))
        #expect(first != (try control(kSecAttrAccessibleAfterFirstUnlock, .userPresence)))
        let set: Set<AnyHashable> = [first, try control(kSecAttrAccessibleWhenUnlocked, .userPresence)]
        #expect(set.count == 1)
    }

    @Test func anAnyHashableQueryCarriesIt() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let query: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword as String, kSecAttrAccount as String: "a",
                kSecAttrAccessControl as String: try control(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly),
                kSecValueData as String: bytes("s"),
            ]
            #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
            var lookup = query
            lookup[kSecValueData as String] = nil
            lookup[kSecReturnAttributes as String] = true
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(lookup as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrAccessible as String] as? String == "cku")
        }
    }
}
