import Foundation
import KeychainCore
import Security
import Testing

/// Status codes, their messages, and the detailed reason of the last failure.
@Suite struct StatusTests {
    @Test func codesHaveApplesValues() {
        let codes: [(OSStatus, OSStatus)] = [
            (errSecSuccess, 0), (errSecUnimplemented, -4), (errSecParam, -50), (errSecAllocate, -108),
            (errSecNotAvailable, -25291), (errSecAuthFailed, -25293), (errSecDuplicateItem, -25299),
            (errSecItemNotFound, -25300), (errSecNoSuchAttr, -25303), (errSecNoSuchClass, -25306),
            (errSecInteractionNotAllowed, -25308), (errSecDecode, -26275), (errSecMissingEntitlement, -34018),
            (errSecRestrictedAPI, -34020), (errSecInternalComponent, -2070), (errSecInvalidCRLAuthority, -67827),
        ]
        for (code, value) in codes { #expect(code == value) }
    }

    @Test func messagesAreApples() {
        let messages: [(OSStatus, String)] = [
            (errSecSuccess, "No error."),
            (errSecItemNotFound, "The specified item could not be found in the keychain."),
            (errSecDuplicateItem, "The specified item already exists in the keychain."),
            (errSecParam, "One or more parameters passed to a function were not valid."),
            (errSecMissingEntitlement, "A required entitlement isn't present."),
            (errSecInteractionNotAllowed, "User interaction is not allowed."),
            (errSecTimestampRevocationNotification, "A timestamp authority revocation notification was issued."),
            (errSecInternalComponent, "errSecInternalComponent"),
            (12345, "OSStatus 12345"),
            (100_002, "UNIX[No such file or directory]"),
        ]
        for (code, message) in messages {
            #expect(SecCopyErrorMessageString(code, nil) as String? == message)
        }
    }

    @Test func everyStatusTheEngineReturnsHasAMessage() {
        for code in EngineError.Code.allCases {
            let message = SecCopyErrorMessageString(code.rawValue, nil) as String?
            #expect(message?.hasPrefix("OSStatus") == false, "\(code)")
        }
    }

    @Test func lastErrorMessageIsPerCallAndPerThread() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            #expect(add(password("a", [kSecAttrServer as String: "x"])).status == errSecNoSuchAttr)
            #expect(
                SecCopyLastErrorMessage() as String?
                    == "SecItemAdd: the attribute \"srvr\" does not exist for class genp (-25303)")
            #expect(add(password("a")).status == errSecSuccess)
            #expect(SecCopyLastErrorMessage() == nil)
            #expect(add(password("a")).status == errSecDuplicateItem)
        }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = SecItemCopyMatching([kSecAttrAccount as String: "no class"] as CFDictionary, nil)
            done.signal()
        }
        thread.start()
        done.wait()
        #expect((SecCopyLastErrorMessage() as String?)?.hasPrefix("SecItemAdd: an item of class genp") == true)
    }

    @Test func lockedClassesAreInteractionNotAllowed() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        keychain.run {
            #expect(add(password("locked", [kSecValueData as String: bytes("x")])).status == errSecSuccess)
            #expect(add(password("always", [kSecAttrAccessible as String: kSecAttrAccessibleAlways])).status == 0)
        }
        keychain.engine.lock()
        keychain.run {
            #expect(copy(password("locked", [kSecReturnData as String: true])).status == errSecInteractionNotAllowed)
            #expect(add(password("new")).status == errSecInteractionNotAllowed)
            #expect(secret("always") == "")
        }
        try keychain.engine.unlock(passcode: "1234")
        keychain.run { #expect(secret("locked") == "x") }
    }

    @Test func passcodeSetOnlyItemsNeedAPasscode() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let accessible = [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]
            #expect(add(password("a", accessible)).status == errSecAuthFailed)
        }
    }
}
