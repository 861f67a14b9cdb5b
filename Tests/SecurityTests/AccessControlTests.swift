import Foundation
import Security
import Testing

/// SecAccessControl: an accessibility alone is stored; constraints are refused until they are enforced.
@Suite struct AccessControlTests {
    @Test func flagsHaveApplesValues() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 2)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 16)
        #expect(SecAccessControlCreateFlags.watch.rawValue == 32)
        #expect(SecAccessControlCreateFlags.companion == .watch)
        #expect(SecAccessControlCreateFlags.or.rawValue == 16384)
        #expect(SecAccessControlCreateFlags.and.rawValue == 32768)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }

    @Test func anInvalidProtectionGivesNilAndAnError() throws {
        var error: Unmanaged<CFError>?
        let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, "sometimes" as CFString, [], &error)
        #expect(control == nil)
        let reported = try #require(error?.takeRetainedValue())
        #expect(reported.code == Int(errSecParam))
        #expect(reported.localizedDescription.contains("sometimes"))
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, [], nil) != nil)
    }

    @Test func withoutFlagsTheProtectionIsStored() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, [], nil))
            let added = add(
                password("a", [kSecAttrAccessControl as String: control, kSecReturnAttributes as String: true]))
            #expect((added.result as? [String: Any])?["pdmn"] as? String == "ck")
            #expect(copy(password("a", [kSecAttrAccessControl as String: control])).status == errSecSuccess)
            let conflicting = add(
                password(
                    "b",
                    [
                        kSecAttrAccessControl as String: control,
                        kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
                    ]))
            #expect(conflicting.status == errSecParam)
            #expect(conflicting.message?.contains("conflicting") == true)
        }
    }

    @Test(arguments: [
        SecAccessControlCreateFlags.userPresence, .devicePasscode, [.biometryAny, .or, .devicePasscode],
        .applicationPassword,
    ])
    func constraintsAreRefusedAndNothingIsStored(flags: SecAccessControlCreateFlags) throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil))
            let outcome = add(
                password("a", [kSecAttrAccessControl as String: control, kSecValueData as String: bytes("x")]))
            #expect(outcome.status == errSecUnimplemented)
            #expect(outcome.message?.contains("not enforced") == true)
            #expect(secret("a") == nil)
            #expect(add(password("b")).status == errSecSuccess)
            #expect(update(password("b"), [kSecAttrAccessControl as String: control]).status == errSecUnimplemented)
            let stored = copy(password("b", [kSecReturnAttributes as String: true])).result as? [String: Any]
            #expect(stored?["pdmn"] as? String == "ak")
        }
    }

    @Test func updateCanChangeTheProtectionThroughAnAccessControl() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(add(password("a")).status == errSecSuccess)
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlwaysThisDeviceOnly, [], nil))
            #expect(update(password("a"), [kSecAttrAccessControl as String: control]).status == errSecSuccess)
            let stored = copy(password("a", [kSecReturnAttributes as String: true])).result as? [String: Any]
            #expect(stored?["pdmn"] as? String == "dku")
        }
    }
}

/// Apple's flag rules, case by case, from `SecAccessControlCreateWithFlags` in Apple's SecAccessControl.m: each
/// refused combination gives `nil` and an `errSecParam` error in Apple's words.
@Suite("SecAccessControlCreateWithFlags: Apple's flag combinations")
struct AccessControlFlagRuleTests {
    @Test(
        "Refused combinations",
        arguments: [
            ([SecAccessControlCreateFlags.or, .and, .devicePasscode], "only one logical operation can be set"),
            ([.biometryAny, .biometryCurrentSet], "only one bio constraint can be set"),
            ([.userPresence, .devicePasscode], "kSecAccessControlUserPresence can be combined only with"),
            ([.userPresence, .or, .applicationPassword], "kSecAccessControlUserPresence can be combined only with"),
            ([.userPresence, .biometryAny], "kSecAccessControlUserPresence can be combined only with"),
        ] as [(SecAccessControlCreateFlags, String)])
    func refused(flags: SecAccessControlCreateFlags, reason: String) throws {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error) == nil)
        let reported = try #require(error?.takeRetainedValue())
        #expect(reported.code == Int(errSecParam))
        #expect(reported.localizedDescription.contains(reason))
    }

    @Test(
        "Accepted combinations",
        arguments: [
            SecAccessControlCreateFlags.userPresence, [.userPresence, .applicationPassword],
            [.userPresence, .privateKeyUsage], [.biometryAny, .or, .devicePasscode],
            [.biometryCurrentSet, .and, .devicePasscode], [.devicePasscode, .applicationPassword], .biometryAny,
            [.applicationPassword],
        ])
    func accepted(flags: SecAccessControlCreateFlags) {
        var error: Unmanaged<CFError>?
        #expect(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error) != nil)
        #expect(error == nil)
    }
}

/// Apple's SecItemAuthDoQuery (SecItem.m): on add and update, an access control with constraints and
/// kSecAttrSynchronizable true is errSecParam, before anything else about the constraints.
@Suite("kSecAttrAccessControl with constraints is never synchronizable")
struct AccessControlSynchronizableTests {
    @Test func addAndUpdateRefuseIt() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
            let synced = add(
                password(
                    "a", [kSecAttrAccessControl as String: control, kSecAttrSynchronizable as String: true]))
            #expect(synced.status == errSecParam)
            #expect(synced.message?.contains("not synchronizable") == true)
            #expect(add(password("b")).status == errSecSuccess)
            let update = SecItemUpdate(
                password("b") as CFDictionary,
                [kSecAttrAccessControl as String: control, kSecAttrSynchronizable as String: true] as CFDictionary)
            #expect(update == errSecParam)
        }
    }
}
