import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 21, items 2 and 3: the sync keys are under the keybag's class keys, so a locked keychain or a copied disk
/// without the passcode opens no synced `ak` item, version or history; and an erase after wrong passcodes stays on
/// its device: it sends no tombstone, and the device leaves the circle.
@Suite("Sync keys under the passcode; the erase stays local")
struct SyncKeyProtectionTests {
    @Test("a copy of a locked keychain's directory, device key and sync state included, opens no synced item")
    func copiedDisk() throws {
        let (circle, a, _) = try passcodeCircleWithHistory(first: "v1", then: "v2")
        a.engine.lock()
        // The thief's copy of the whole directory, opened by a fresh process that does not know the passcode.
        try a.close()
        let copy = circle.temporary.url.appendingPathComponent("stolen", isDirectory: true)
        try FileManager.default.copyItem(at: a.directory, to: copy)
        let thief = try Engine(storage: .directory(copy), options: EngineOptions(passcodeCost: .minimum))
        #expect {
            try SyncDevice.open(directory: copy, backend: thief, store: circle.store)
        } throws: { error in
            (error as? SyncError)?.kind == .keychain(.interactionNotAllowed)
        }
        // Nothing in the sync state opens with the device key alone (the first form's wrapping).
        let state = try SyncDatabase.open(in: copy)
        for name in [
            SyncDevice.Meta.agreementKeyA, SyncDevice.Meta.signingKeyC, SyncDevice.Meta.localHashKeyC,
        ] {
            let wrapped = try #require(try state.value(name))
            for purpose in ["sync x25519 private key", "sync ed25519 seed"] {
                #expect(throws: EngineError.self) { try DeviceKeyWrapping.unwrap(wrapped, purpose: purpose, in: copy) }
            }
        }
        #expect(try state.value(SyncDevice.Meta.agreementKey) == nil)
        #expect(try state.value(SyncDevice.Meta.signingKey) == nil)
    }

    @Test("sync-history of an ak item is refused while the keychain is locked, and shown once it is unlocked")
    func historyWhileLocked() throws {
        let (_, a, _) = try passcodeCircleWithHistory(first: "old", then: "new")
        let reference = try a.reference(account: "mail")
        #expect(try a.sync.history(for: reference).map { String(decoding: $0.data, as: UTF8.self) } == ["old"])
        a.engine.lock()
        #expect {
            try a.sync.history(for: reference)
        } throws: { error in
            (error as? SyncError)?.kind == .keychain(.interactionNotAllowed)
        }
        try a.engine.unlock(passcode: try Passcode(copying: "1234"))
        #expect(try a.sync.history(for: reference).count == 1)
    }

    @Test("an erase after wrong passcodes sends no tombstone: the peer keeps the item, the erased device leaves")
    func eraseStaysLocal() throws {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.engine.setPasscode(try Passcode(copying: "1234"), current: nil)
        try a.add(account: "kept", service: "svc", secret: "everywhere", accessible: .afterFirstUnlock)
        try circle.syncAll()
        #expect(try b.secret(account: "kept", service: "svc") == "everywhere")
        try a.engine.setEraseAfter(failures: 6, passcode: try Passcode(copying: "1234"))
        a.engine.lock()
        for attempt in 1...6 {
            #expect(throws: EngineError.self) { try a.engine.unlock(passcode: try Passcode(copying: "0000")) }
            if attempt >= 5 { a.clock.set(offset: Double(attempt) * 7200) }
        }
        #expect(try a.secret(account: "kept", service: "svc") == nil, "the erase removed the item here")
        // The device's follower (still holding its sync keys in memory) runs its next pass.
        #expect {
            try a.sync.syncOnce()
        } throws: { error in
            (error as? SyncError)?.kind == .notConfigured
        }
        try circle.syncAll(except: [a])
        #expect(try b.secret(account: "kept", service: "svc") == "everywhere", "the peer keeps the item")
        let tombstones = try b.sync.state.entries(kinds: [.tombstone])
        #expect(tombstones.isEmpty, "no tombstone travelled")
        #expect(!SyncDevice.isConfigured(in: a.directory), "the erased device's sync state is set aside")
    }

    /// Two devices; the first has the passcode 1234 and an `ak` item `mail` written `first` there, then `then` on
    /// the second, so the first holds the older version as history.
    private func passcodeCircleWithHistory(
        first: String, then: String
    ) throws -> (TestCircle, TestDevice, TestDevice) {
        let circle = try TestCircle(.memory, devices: 2)
        let (a, b) = (circle.devices[0], circle.devices[1])
        try a.engine.setPasscode(try Passcode(copying: "1234"), current: nil)
        try a.add(account: "mail", service: "svc", secret: first)
        try circle.syncAll()
        try b.update(account: "mail", service: "svc", secret: then)
        try circle.syncAll()
        return (circle, a, b)
    }
}
