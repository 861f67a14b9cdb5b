import Foundation
import Security
import Testing

/// SecAccessControl: the accessibility it carries, and Apple's rules for its flags.
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
            #expect(conflicting.message?.contains("kSecAttrAccessible") == true)
        }
    }

    /// SecAccessControl.m, SecAccessControlCreateWithFlags: each refusal is `errSecParam` and no object.
    @Test(arguments: [
        FlagRule([.or, .and, .devicePasscode], "only one logical operation"),
        FlagRule([.biometryAny, .biometryCurrentSet], "only one bio constraint"),
        FlagRule([.userPresence, .devicePasscode], "kSecAccessControlUserPresence can be combined only"),
        FlagRule([.userPresence, .biometryAny], "kSecAccessControlUserPresence can be combined only"),
    ])
    func applesFlagRulesRefuse(rule: FlagRule) throws {
        let (flags, reason) = (rule.flags, rule.reason)
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error) == nil)
        let reported = try #require(error?.takeRetainedValue())
        #expect(reported.code == Int(errSecParam))
        #expect(reported.localizedDescription.contains(reason))
    }

    /// The combinations SecAccessControl.m accepts.
    @Test(arguments: [
        SecAccessControlCreateFlags.userPresence, [.userPresence, .applicationPassword],
        [.userPresence, .privateKeyUsage], [.biometryAny, .or, .devicePasscode],
        [.devicePasscode, .and, .applicationPassword],
    ])
    func applesFlagRulesAccept(flags: SecAccessControlCreateFlags) {
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil) != nil)
    }

    /// SecItem.m, SecItemAuthDoQuery: an item with constraints never syncs; and without a passcode an item that
    /// needs one is refused (as iOS refuses akpu items), storing nothing.
    @Test func constrainedItemsThatCannotBeProtectedAreRefused() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
            let synchronizable = add(
                password(
                    "a",
                    [
                        kSecAttrAccessControl as String: control, kSecAttrSynchronizable as String: true,
                        kSecValueData as String: bytes("x"),
                    ]))
            #expect(synchronizable.status == errSecParam)
            let noPasscode = add(
                password("a", [kSecAttrAccessControl as String: control, kSecValueData as String: bytes("x")]))
            #expect(noPasscode.status == errSecAuthFailed)
            #expect(noPasscode.message?.contains("passcode") == true)
            #expect(copy(password("a")).status == errSecItemNotFound)
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

/// One of SecAccessControl.m's refusals: the flags and the words of its reason.
struct FlagRule: Sendable, CustomTestStringConvertible {
    var flags: SecAccessControlCreateFlags
    var reason: String

    init(_ flags: SecAccessControlCreateFlags, _ reason: String) {
        self.flags = flags
        self.reason = reason
    }

    var testDescription: String { "0x\(String(flags.rawValue, radix: 16))" }
}
