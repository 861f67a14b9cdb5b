import Foundation
import KeychainCore

/// Where this device keeps its sync keys (issue 21, item 2): every private key under a class key of the keychain's
/// keybag, through the backend's file-key wrapping (so it works embedded and inside keychaind), bound to this
/// keybag: `ak` (file class A) for what opens `ak` items — the agreement key, each epoch's top-level key and `ak`
/// class key — and `ck` (class C) for what sync needs from the first unlock on — the signing seed, the local hash
/// key and each epoch's `ck` class key. `ak` keys are unwrapped for each use and never kept in memory, so a
/// process whose keychain locks can open no `ak` version any more. A sentinel under `dk` (class D) tells an erased
/// keychain (a fresh keybag) from a locked one.
extension SyncDevice {
    /// Wraps `key` under `fileClass`'s key of the keychain behind `backend`, for `purpose`.
    static func wrap(
        _ key: SecretKey, _ fileClass: FileKeyClass, purpose: String, backend: any KeychainBackend
    ) throws(SyncError) -> Data {
        do {
            return try backend.wrapFileKey(key, for: fileClass, context: context(purpose))
        } catch {
            throw SyncError(error, "cannot wrap the sync \(purpose)")
        }
    }

    /// Opens a key wrapped by ``wrap(_:_:purpose:backend:)``; a locked class is `errSecInteractionNotAllowed`.
    static func unwrap(
        _ wrapped: Data, _ fileClass: FileKeyClass, purpose: String, backend: any KeychainBackend
    ) throws(SyncError) -> SecretKey {
        do {
            return try backend.unwrapFileKey(wrapped, for: fileClass, context: context(purpose))
        } catch {
            if error.code == .interactionNotAllowed {
                throw SyncError(
                    .keychain(.interactionNotAllowed),
                    "the sync \(purpose) opens only while the keychain is unlocked: unlock it first")
            }
            throw SyncError(error, "the sync \(purpose) does not open with this keychain's keys")
        }
    }

    private static func context(_ purpose: String) -> [UInt8] {
        Array("swift-keychain sync key v2|\(purpose)".utf8)
    }

    /// Whether the keychain was erased since the sync state was made (``isErased(_:_:)``).
    func wasErased() throws(SyncError) -> Bool {
        try Self.isErased(state, backend)
    }

    /// This device's agreement key pair, unwrapped for one use (while the keychain is unlocked).
    func agreementKeyPair() throws(SyncError) -> KeyAgreementKeyPair {
        guard let wrapped = try state.value(Meta.agreementKeyA) else {
            throw SyncError(.damaged, "the sync state lacks this device's agreement key")
        }
        let key = try Self.unwrap(wrapped, .classA, purpose: "agreement key", backend: backend)
        return try keychain("cannot open the sync agreement key") { () throws(EngineError) -> KeyAgreementKeyPair in
            try KeyAgreementKeyPair(privateKey: key)
        }
    }

    // MARK: Epochs

    /// Keeps a new or newly opened epoch's keys, wrapped, and its `ck` key in memory.
    func remember(_ keys: EpochKeys) throws(SyncError) {
        guard let topLevel = keys.topLevel, let whenUnlocked = keys.classKeys[.whenUnlocked],
            let afterFirstUnlock = keys.classKeys[.afterFirstUnlock]
        else { throw SyncError(.damaged, "epoch \(keys.id) is incomplete") }
        // An epoch's keys never change: one kept already (opened again after a restart) stays as it is.
        if wrappedEpochKeys[keys.id] == nil {
            let wrapped = SyncDatabase.WrappedEpochKeys(
                top: try Self.wrap(topLevel, .classA, purpose: Self.purpose(keys.id, .top), backend: backend),
                whenUnlocked: try Self.wrap(
                    whenUnlocked, .classA, purpose: Self.purpose(keys.id, .whenUnlocked), backend: backend),
                afterFirstUnlock: try Self.wrap(
                    afterFirstUnlock, .classC, purpose: Self.purpose(keys.id, .afterFirstUnlock), backend: backend))
            try state.saveEpochKeys(
                keys.id, top: wrapped.top, whenUnlocked: wrapped.whenUnlocked,
                afterFirstUnlock: wrapped.afterFirstUnlock)
            wrappedEpochKeys[keys.id] = wrapped
        }
        epochKeys[keys.id] = EpochKeys(id: keys.id, topLevel: nil, classKeys: [.afterFirstUnlock: afterFirstUnlock])
    }

    /// Loads the `ck` keys of every kept epoch into memory (from the first unlock on).
    func loadEpochs() throws(SyncError) {
        wrappedEpochKeys = try state.epochKeys()
        for (id, wrapped) in wrappedEpochKeys where epochKeys[id] == nil {
            let key = try Self.unwrap(
                wrapped.afterFirstUnlock, .classC, purpose: Self.purpose(id, .afterFirstUnlock), backend: backend)
            epochKeys[id] = EpochKeys(id: id, topLevel: nil, classKeys: [.afterFirstUnlock: key])
        }
    }

    /// The keys of `epoch` that `keyClass` needs (an `ak` key is unwrapped now, and only while unlocked).
    func epochKeys(_ epoch: EpochID, for keyClass: SyncKeyClass) throws(SyncError) -> EpochKeys? {
        guard let kept = epochKeys[epoch] else { return nil }
        guard keyClass == .whenUnlocked else { return kept }
        if let key = passKeys?[epoch] { return EpochKeys(id: epoch, topLevel: nil, classKeys: [.whenUnlocked: key]) }
        guard let wrapped = wrappedEpochKeys[epoch] else { return nil }
        let key = try Self.unwrap(
            wrapped.whenUnlocked, .classA, purpose: Self.purpose(epoch, .whenUnlocked), backend: backend)
        if passKeys != nil { passKeys?[epoch] = key }
        return EpochKeys(id: epoch, topLevel: nil, classKeys: [.whenUnlocked: key])
    }

    /// The keys of an epoch this device keeps wrapped.
    enum EpochKeyKind: String {
        case top = "top-level key"
        case whenUnlocked = "ak key"
        case afterFirstUnlock = "ck key"
    }

    /// The purpose (bound into its wrapping) of one of an epoch's keys.
    private static func purpose(_ epoch: EpochID, _ kind: EpochKeyKind) -> String {
        "epoch \(epoch.number) of \(epoch.creator) \(kind.rawValue)"
    }

    /// The top-level key of every kept epoch (to share them), unwrapped now: only while unlocked.
    func topLevelKeys() throws(SyncError) -> [EpochID: EpochKeys] {
        var result: [EpochID: EpochKeys] = [:]
        for (id, wrapped) in wrappedEpochKeys {
            let key = try Self.unwrap(wrapped.top, .classA, purpose: Self.purpose(id, .top), backend: backend)
            result[id] = EpochKeys(id: id, topLevel: key, classKeys: [:])
        }
        return result
    }

    /// Every key of `epoch`, unwrapped now (only while unlocked), or `nil` when this device keeps none of it.
    func allEpochKeys(_ epoch: EpochID) throws(SyncError) -> EpochKeys? {
        guard let afterFirstUnlock = epochKeys[epoch]?.classKeys[.afterFirstUnlock],
            let whenUnlocked = try epochKeys(epoch, for: .whenUnlocked)?.classKeys[.whenUnlocked],
            let topLevel = try topLevelKeys()[epoch]?.topLevel
        else { return nil }
        return EpochKeys(
            id: epoch, topLevel: topLevel,
            classKeys: [.whenUnlocked: whenUnlocked, .afterFirstUnlock: afterFirstUnlock])
    }
}
