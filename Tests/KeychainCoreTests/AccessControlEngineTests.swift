import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// Access control in the engine (DESIGN §11): an item's secret is sealed to its factors, so a request opens it
/// only with them, and Apple's per-operation rules (`SecItemAuthDo`: attributes, attribute updates and deletes need
/// no authentication; data does).
@Suite("Access control: the engine")
struct AccessControlEngineTests {
    private func constrained(
        _ flags: AccessConstraint.Flags, account: String = "alice", data: String = "s3cret",
        password: String? = nil
    ) throws -> NewItem {
        NewItem(
            itemClass: .genericPassword,
            attributes: genp(account, [.accessControl: try AccessConstraint(flags: flags).attributeValue]),
            data: Data(data.utf8),
            authentication: try password.map { ItemAuthentication(applicationPassword: try Passcode(copying: $0)) })
    }

    private func read(
        _ engine: Engine, account: String = "alice", _ authentication: ItemAuthentication? = nil
    ) throws -> Data? {
        try engine.copyMatching(
            ItemQuery(
                itemClass: .genericPassword, attributes: genp(account), returning: [.data],
                authentication: authentication),
            for: app
        ).first?.data
    }

    private func readErrorOf(
        account: String, _ engine: Engine, _ authentication: ItemAuthentication? = nil
    ) -> EngineError? {
        do {
            _ = try read(engine, account: account, authentication)
            return nil
        } catch let error as EngineError {
            return error
        } catch {
            return nil
        }
    }

    private func readError(
        _ engine: Engine, _ authentication: ItemAuthentication? = nil
    ) -> EngineError? {
        do {
            _ = try read(engine, authentication)
            return nil
        } catch let error as EngineError {
            return error
        } catch {
            return nil
        }
    }

    @Test("userPresence: the data needs the passcode, the attributes do not")
    func userPresence() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.userPresence), for: app)

        let needed = readError(keychain.engine)
        #expect(needed?.code == .authNeeded)
        #expect(needed?.neededFactors == [.passcode])
        #expect(
            readError(keychain.engine, ItemAuthentication(interaction: .notAllowed))?.code == .interactionNotAllowed)
        #expect(readError(keychain.engine, ItemAuthentication(interaction: .skipItems))?.code == .itemNotFound)
        #expect(
            try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "1234")))
                == Data("s3cret".utf8))

        let wrong = readError(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "0000")))
        #expect(wrong?.code == .authFailed)
        #expect(try keychain.engine.keybagStatus().failedAttempts == 1)

        let attributes = try keychain.engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp("alice"), returning: [.attributes]), for: app)
        let value = try #require(attributes.first?.attributes[.accessControl])
        #expect(try AccessConstraint(attributeValue: value).flags == .userPresence)
    }

    @Test("Updating attributes and deleting need no factor; writing the data needs it")
    func perOperation() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.devicePasscode), for: app)
        let query = ItemQuery(itemClass: .genericPassword, attributes: genp("alice"))
        #expect(try keychain.engine.update(query, with: ItemChanges(attributes: [.label: .string("L")]), for: app) == 1)
        #expect(
            try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "1234")))
                == Data("s3cret".utf8))

        let newData = ItemChanges(data: Data("new".utf8))
        #expect(status { _ = try keychain.engine.update(query, with: newData, for: app) } == .authNeeded)
        var authenticated = query
        authenticated.authentication = ItemAuthentication(passcode: try Passcode(copying: "1234"))
        #expect(try keychain.engine.update(authenticated, with: newData, for: app) == 1)
        #expect(
            try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "1234"))) == Data("new".utf8))
        #expect(
            status {
                _ = try keychain.engine.update(
                    query,
                    with: ItemChanges(attributes: [.accessControl: try AccessConstraint(flags: []).attributeValue]),
                    for: app)
            } == .param)
        #expect(try keychain.engine.delete(query, for: app) == 1)
    }

    @Test("An application password opens its item; a wrong one or none does not")
    func applicationPassword() throws {
        let keychain = try TestKeychain()
        #expect(status { try keychain.engine.add(try constrained(.applicationPassword), for: app) } == .authNeeded)
        try keychain.engine.add(try constrained(.applicationPassword, password: "open sesame"), for: app)
        #expect(readError(keychain.engine)?.neededFactors == [.applicationPassword])
        #expect(
            readError(keychain.engine, ItemAuthentication(applicationPassword: try Passcode(copying: "nope")))?.code
                == .authFailed)
        #expect(
            try read(keychain.engine, ItemAuthentication(applicationPassword: try Passcode(copying: "open sesame")))
                == Data("s3cret".utf8))
    }

    /// Found by review: the entry did not keep its Argon2id cost, so a keychain opened with another cost (another
    /// process's options, keychaind's) called the right password wrong.
    @Test("An application password still opens its item when the keychain is opened with another cost")
    func applicationPasswordKeepsItsCost() throws {
        let keychain = try TestKeychain()
        try keychain.engine.add(try constrained(.applicationPassword, password: "open sesame"), for: app)
        let other = try Engine(
            storage: .directory(keychain.directory.keychain),
            options: EngineOptions(
                passcodeCost: PasscodeCost(
                    passes: PasscodeCost.minimum.passes + 1, memoryBytes: PasscodeCost.minimum.memoryBytes * 2)))
        #expect(
            try read(other, ItemAuthentication(applicationPassword: try Passcode(copying: "open sesame")))
                == Data("s3cret".utf8))
    }

    @Test("or: any one factor opens the item; and: every factor is needed")
    func combinations() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(
            try constrained([.devicePasscode, .applicationPassword, .or], account: "either", password: "pw"), for: app)
        try keychain.engine.add(
            try constrained([.devicePasscode, .applicationPassword, .and], account: "both", password: "pw"), for: app)
        #expect(
            try read(keychain.engine, account: "either", ItemAuthentication(passcode: try Passcode(copying: "1234")))
                != nil)
        #expect(
            try read(
                keychain.engine, account: "either", ItemAuthentication(applicationPassword: try Passcode(copying: "pw"))
            ) != nil)
        #expect(
            status {
                _ = try read(
                    keychain.engine, account: "both", ItemAuthentication(passcode: try Passcode(copying: "1234")))
            }
                == .authNeeded)
        #expect(
            try read(
                keychain.engine, account: "both",
                ItemAuthentication(
                    passcode: try Passcode(copying: "1234"), applicationPassword: try Passcode(copying: "pw")))
                == Data("s3cret".utf8))
    }

    @Test("Biometry cannot be presented here: alone it fails, with .or the passcode still opens")
    func biometry() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.biometryAny, account: "bio"), for: app)
        try keychain.engine.add(
            try constrained([.biometryCurrentSet, .devicePasscode, .or], account: "fallback"), for: app)
        #expect(
            status {
                _ = try read(
                    keychain.engine, account: "bio", ItemAuthentication(passcode: try Passcode(copying: "1234")))
            }
                == .authFailed)
        #expect(
            try read(keychain.engine, account: "fallback", ItemAuthentication(passcode: try Passcode(copying: "1234")))
                != nil)
    }

    @Test("Without a passcode an item that needs one is refused, as iOS refuses akpu items")
    func noPasscode() throws {
        let keychain = try TestKeychain()
        #expect(status { try keychain.engine.add(try constrained(.userPresence), for: app) } == .authFailed)
        #expect(
            status {
                var item = try constrained(.userPresence)
                item.attributes[.synchronizable] = .bool(true)
                try keychain.engine.add(item, for: app)
            } == .param)
    }

    @Test("Changing the passcode rewraps the factor; removing it deletes the items only it opens")
    func passcodeLifecycle() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.userPresence), for: app)
        try keychain.engine.add(
            try constrained([.devicePasscode, .applicationPassword, .or], account: "either", password: "pw"), for: app)
        try keychain.engine.setPasscode("5678", current: "1234")
        #expect(
            status { _ = try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "1234"))) }
                == .authFailed)
        #expect(
            try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "5678")))
                == Data("s3cret".utf8))
        try keychain.engine.removePasscode(current: "5678")
        #expect(
            status { _ = try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "5678"))) }
                == .itemNotFound)
        #expect(
            try read(
                keychain.engine, account: "either", ItemAuthentication(applicationPassword: try Passcode(copying: "pw"))
            ) != nil)
    }

    /// Found by review: after the passcode was removed (or replaced by a new one), an `.or` item's passcode entry,
    /// sealed to the old factor, was reported as damaged instead of letting its other factor open it.
    @Test("After the passcode goes, an .or item's other factor still opens it, and the passcode is not asked for")
    func orSurvivesPasscodeRemoval() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(
            try constrained([.devicePasscode, .applicationPassword, .or], account: "either", password: "pw"), for: app)
        try keychain.engine.removePasscode(current: "1234")
        let needed = readErrorOf(account: "either", keychain.engine)
        #expect(needed?.code == .authNeeded)
        #expect(needed?.neededFactors == [.applicationPassword])
        try keychain.engine.setPasscode("9999", current: nil)
        #expect(
            try read(
                keychain.engine, account: "either",
                ItemAuthentication(
                    passcode: try Passcode(copying: "9999"), applicationPassword: try Passcode(copying: "pw")))
                == Data("s3cret".utf8))
        #expect(
            status {
                _ = try read(
                    keychain.engine, account: "either", ItemAuthentication(passcode: try Passcode(copying: "9999")))
            }
                == .authNeeded)
    }

    /// Found by review: the passcode factor's public key was not bound to its private key, so a writer holding the
    /// class keys could put its own in place and have new items sealed to it.
    @Test("A passcode factor whose public key was replaced is found at the next unlock, and nothing is sealed to it")
    func replacedFactorPublicKey() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        let database = try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
        let other = try KeyAgreementKeyPair.generate()
        try database.run(
            "UPDATE class_keys SET public_key = ? WHERE name = ?",
            [.blob(other.publicKey), .text(KeybagRecord.passcodeFactorName)])
        let reopened = try keychain.reopen()
        try reopened.unlock(passcode: "1234")
        #expect(status { try reopened.add(try constrained(.userPresence), for: app) } == .decode)
        try reopened.setPasscode("5678", current: "1234")
        try reopened.add(try constrained(.userPresence), for: app)
        #expect(try read(reopened, ItemAuthentication(passcode: try Passcode(copying: "5678"))) == Data("s3cret".utf8))
    }

    @Test("A passcode kept from before a lock no longer opens anything")
    func lockEndsReuse() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.userPresence), for: app)
        let epoch = try keychain.engine.keybagStatus().lockEpoch
        let kept = ItemAuthentication(passcode: try Passcode(copying: "1234"), passcodeEpoch: epoch)
        #expect(try read(keychain.engine, kept) != nil)
        keychain.engine.lock()
        try keychain.engine.unlock(passcode: "1234")
        #expect(readError(keychain.engine, kept)?.code == .authNeeded)
    }

    @Test("Enforcement: with every class key unwrapped, the secret still does not open without the factor")
    func enforcement() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.add(try constrained(.userPresence, data: "the secret"), for: app)
        // Everything an unlocked keybag holds: the item key, opened with its class key.
        let (row, itemKey) = try keychain.engine.state.withLock { state throws -> (StoredItemSnapshot, SecretKey) in
            var snapshot: StoredItemSnapshot?
            let key = try SecretKey.zeroed()
            try state.store.allRows { (_, _, parsed) throws(EngineError) in
                let row = try parsed.get()
                var associatedData: [UInt8] = []
                row.keyAssociatedData(into: &associatedData)
                try AEAD.open(
                    key: row.wrappedKey, under: try state.keybag.key(for: row.protectionClass),
                    associatedData: associatedData, into: key)
                snapshot = StoredItemSnapshot(
                    uuid: row.uuid, itemClass: row.itemClass,
                    secret: Data(row.secret ?? UnsafeRawBufferPointer(start: nil, count: 0)))
            }
            guard let snapshot else { throw EngineError(.itemNotFound, "no row") }
            return (snapshot, key)
        }
        #expect(!row.secret.contains(Data("the secret".utf8)))
        let envelope = try AccessEnvelope(decoding: row.secret)
        let binding = ItemSealer.accessBinding(uuid: row.uuid, itemClass: row.itemClass)
        let associatedData = Array("swift-keychain access secret v1".utf8) + binding
        // The item key alone, or with a guessed unlock secret, opens nothing.
        #expect(throws: EngineError.self) {
            try AEAD.open(envelope.sealedSecret, key: itemKey, associatedData: associatedData)
        }
        let guessed = try AccessLock.secretKey(itemKey: itemKey, unlockSecret: try SecretKey.random())
        #expect(throws: EngineError.self) {
            try AEAD.open(envelope.sealedSecret, key: guessed, associatedData: associatedData)
        }
        // Nor does the passcode entry open with any key the unlocked keybag holds.
        let classKey = try keychain.engine.state.withLock { state in try state.keybag.key(for: .whenUnlocked) }
        let unlocked = try KeyAgreementKeyPair(privateKey: classKey)
        let entry = try #require(envelope.entries.first { $0.factor == AccessFactor.passcode })
        #expect(throws: EngineError.self) {
            try PublicKeySeal.open(
                entry.payload, with: unlocked,
                associatedData: Array("swift-keychain access entry v1 passcode".utf8) + binding)
        }
        // With the typed passcode it opens.
        #expect(
            try read(keychain.engine, ItemAuthentication(passcode: try Passcode(copying: "1234")))
                == Data("the secret".utf8))
    }
}

/// What the enforcement test copies out of a row.
private struct StoredItemSnapshot {
    var uuid: UUID
    var itemClass: ItemClass
    var secret: Data
}
