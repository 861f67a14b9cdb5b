import Foundation
import KeychainCore

/// One device of a user's sync circle: a keychain directory, its keychain backend, and the store the circle shares
/// (DESIGN §12).
///
/// Create the circle on the first device with ``createCircle(directory:backend:store:storeURL:name:options:)``;
/// on each other device ``join(directory:backend:store:storeURL:name:circleCode:options:)`` asks to join, a member
/// answers the request (``answerJoinRequests()``), the new device then shows the code to type on that member
/// (``revealJoinCodes()``), and the member admits it with ``approve(code:)``. ``syncOnce()`` then exchanges
/// synchronizable items both ways; ``follow(interval:onPass:)`` keeps doing it as the store and the keychain change.
///
/// Every method may block (the store, `fsync`); all are safe to call from any thread, one at a time in effect.
public final class SyncDevice: @unchecked Sendable {
    // @unchecked: every mutable field is used only while `lock` is held.
    let directory: URL
    let backend: any KeychainBackend
    let store: any SyncStore
    let options: SyncOptions
    let state: SyncDatabase
    let identity: DeviceIdentity
    /// This device's id.
    public let deviceID: String
    let lock = NSLock()
    /// The key of the local hashes (content and primary keys), kept under `ck`.
    let localHashKey: SecretKey
    var clock: HybridTime
    /// The identities of the store's devices read so far (self-certifying: the id is a digest of the keys).
    var knownIdentities: [String: PublicIdentity] = [:]
    /// Epoch keys opened so far (`ck` keys only: ``SyncDevice+Keys``).
    var epochKeys: [EpochID: EpochKeys] = [:]
    /// Every kept epoch's keys, as wrapped in the sync state (ciphertext: read once, not for each version).
    var wrappedEpochKeys: [EpochID: SyncDatabase.WrappedEpochKeys] = [:]
    /// The `ak` class keys unwrapped during the current pass, forgotten when it ends (`nil` between passes, when
    /// each use unwraps again): one unwrap per epoch and pass, not one per version.
    var passKeys: [EpochID: SecretKey]?
    /// The log entries this pass read from the store, decoded once (by record name, with the bytes they were
    /// decoded from): applying them later in the pass decodes none again. `nil` between passes.
    var passEntries: [String: (bytes: [UInt8], entry: LogEntry)]?
    /// Who hears the current pass's progress (``syncOnce(progress:)``); `nil` between passes.
    var passProgress: ((SyncProgress) -> Void)?
    /// The sequences of each device's log in the store, as the last pull listed them.
    var storeLogs: [String: Set<Int64>] = [:]
    /// The highest sequence of each device's log in the store, as the last pull listed it.
    var storeHighestSequences: [String: Int64] = [:]
    /// The circle's newest epoch, as the last pass saw it (writers seal under it).
    var currentEpoch: EpochID?
    /// The devices with an identity record in the store, as the last pull listed them.
    var storeIdentities: Set<String> = []

    /// The caller sync acts as: every access group (items keep their own group).
    static let caller = Caller.administrator(defaultGroup: "com.swift-keychain.sync")

    private init(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, options: SyncOptions, state: SyncDatabase,
        identity: DeviceIdentity, localHashKey: SecretKey
    ) throws(SyncError) {
        self.directory = directory
        self.backend = backend
        self.store = store
        self.options = options
        self.state = state
        self.identity = identity
        self.localHashKey = localHashKey
        deviceID = try identity.publicIdentity.deviceID
        clock = HybridTime(rawValue: try state.integer(Meta.clock) ?? 0)
    }

    /// Whether the keychain in `directory` is set up for sync.
    public static func isConfigured(in directory: URL) -> Bool {
        SyncDatabase.exists(in: directory)
    }

    /// Opens the sync state of a keychain set up by ``createCircle(directory:backend:store:storeURL:name:options:)``
    /// or ``join(directory:backend:store:storeURL:name:circleCode:options:)``.
    public static func open(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, options: SyncOptions = SyncOptions()
    ) throws(SyncError) -> SyncDevice {
        let state = try SyncDatabase.open(in: directory)
        if try state.value(Meta.agreementKey) != nil {
            try upgradeFirstForm(state, directory: directory, backend: backend)
        }
        guard let identityJSON = try state.value(Meta.publicIdentity), let signing = try state.value(Meta.signingKeyC),
            let hashKey = try state.value(Meta.localHashKeyC),
            let publicIdentity = try? JSONDecoder().decode(PublicIdentity.self, from: identityJSON)
        else { throw SyncError(.damaged, "the sync state in \(directory.path) lacks the device's keys") }
        let seed = try unwrapBeforeErase(signing, purpose: "signing seed", state, directory, backend)
        let signingPair = try keychain("cannot open the sync signing key") {
            () throws(EngineError) -> SigningKeyPair in try SigningKeyPair(seed: seed)
        }
        let device = try SyncDevice(
            directory: directory, backend: backend, store: store, options: options, state: state,
            identity: DeviceIdentity(publicIdentity: publicIdentity, signing: signingPair),
            localHashKey: try unwrapBeforeErase(hashKey, purpose: "local hash key", state, directory, backend))
        try device.loadEpochs()
        return device
    }

    /// Opens a `ck` key of the sync state, or, when the keychain was erased since (its keybag is a fresh one),
    /// discards the sync state: the erased device has left the circle and joins again as a new device.
    private static func unwrapBeforeErase(
        _ wrapped: Data, purpose: String, _ state: SyncDatabase, _ directory: URL, _ backend: any KeychainBackend
    ) throws(SyncError) -> SecretKey {
        do throws(SyncError) {
            return try unwrap(wrapped, .classC, purpose: purpose, backend: backend)
        } catch {
            if try isErased(state, backend) {
                try setAside(state)
                throw erasedError(directory)
            }
            throw error
        }
    }

    /// Whether the keychain was erased since `state` was made: its `dk` sentinel no longer opens (a fresh keybag).
    /// `dk` is always available, so a lock never looks like an erase.
    static func isErased(_ state: SyncDatabase, _ backend: any KeychainBackend) throws(SyncError) -> Bool {
        guard let sentinel = try state.value(Meta.eraseSentinel) else { return false }
        do throws(SyncError) {
            _ = try unwrap(sentinel, .classD, purpose: "erase sentinel", backend: backend)
            return false
        } catch {
            return error.kind == .keychain(.decode)
        }
    }

    /// Removes a sync state (the keychain's items are untouched).
    static func discard(_ state: SyncDatabase) {
        for suffix in ["", "-wal", "-shm"] { unlink(state.path + suffix) }
    }

    /// Sets aside the sync state of an erased keychain: renamed (`sync.sqlite.erased-<time>`), never used again,
    /// kept only so that a mistake (a keychain opened with another's keys) can be undone by hand.
    static func setAside(_ state: SyncDatabase) throws(SyncError) {
        let stamp = Int(Date().timeIntervalSince1970)
        for suffix in ["-wal", "-shm", ""] {
            let source = state.path + suffix
            guard FileManager.default.fileExists(atPath: source) else { continue }
            guard rename(source, state.path + ".erased-\(stamp)" + suffix) == 0 else {
                throw SyncError(
                    .keychain(.ioError),
                    "cannot set aside the sync state \(source): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// What every sync operation on an erased keychain says.
    static func erasedError(_ directory: URL) -> SyncError {
        SyncError(
            .notConfigured,
            "the keychain in \(directory.path) was erased after too many wrong passcodes: it has left the sync "
                + "circle, and its sync state is set aside (sync.sqlite.erased-…); join the circle again (sync-join), "
                + "and remove its old device from another one")
    }

    /// Moves the keys of a sync state of the first form (wrapped by the device key alone) under the class keys;
    /// needs the keychain unlocked.
    private static func upgradeFirstForm(
        _ state: SyncDatabase, directory: URL, backend: any KeychainBackend
    ) throws(SyncError) {
        guard let agreement = try state.value(Meta.agreementKey), let signing = try state.value(Meta.signingKey),
            let name = try state.text(Meta.name)
        else { throw SyncError(.damaged, "the sync state in \(directory.path) lacks the device's keys") }
        let (identity, pair) = try DeviceIdentity.unwrapFirstForm(
            agreement: agreement, signing: signing, name: name, in: directory)
        // The hash key is the one the first form derived, so the local hashes kept stay valid.
        let hashKey = try keychain("cannot derive the sync hash key") { () throws(EngineError) -> SecretKey in
            try KeyedHash.deriveKey(from: pair.privateKey, context: "swift-keychain sync local hashes")
        }
        try storeKeys(state, identity: identity, agreement: pair, localHashKey: hashKey, backend: backend)
        try state.transaction { () throws(SyncError) in
            try state.deleteValue(Meta.agreementKey)
            try state.deleteValue(Meta.signingKey)
        }
    }

    /// Writes the device's keys to the sync state, wrapped under the class keys, with the erase sentinel.
    private static func storeKeys(
        _ state: SyncDatabase, identity: DeviceIdentity, agreement: KeyAgreementKeyPair, localHashKey: SecretKey,
        backend: any KeychainBackend
    ) throws(SyncError) {
        let identityJSON: Data
        do {
            identityJSON = try JSONEncoder().encode(identity.publicIdentity)
        } catch {
            throw SyncError(.damaged, "cannot encode this device's public identity: \(error)")
        }
        let wrappedAgreement = try wrap(agreement.privateKey, .classA, purpose: "agreement key", backend: backend)
        let wrappedSigning = try wrap(identity.signing.seed, .classC, purpose: "signing seed", backend: backend)
        let wrappedHashKey = try wrap(localHashKey, .classC, purpose: "local hash key", backend: backend)
        let sentinel = try wrap(
            try keychain("cannot make the erase sentinel") { () throws(EngineError) -> SecretKey in
                try SecretKey.random()
            }, .classD, purpose: "erase sentinel", backend: backend)
        try state.transaction { () throws(SyncError) in
            try state.setValue(identityJSON, for: Meta.publicIdentity)
            try state.setValue(wrappedAgreement, for: Meta.agreementKeyA)
            try state.setValue(wrappedSigning, for: Meta.signingKeyC)
            try state.setValue(wrappedHashKey, for: Meta.localHashKeyC)
            try state.setValue(sentinel, for: Meta.eraseSentinel)
        }
    }

    /// Creates the circle in an empty store: this device becomes its first member and epoch 1's top-level key is
    /// sealed to it. Refuses a store that holds a circle already (join it instead) and a keychain set up already.
    public static func createCircle(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, storeURL: String, name: String,
        options: SyncOptions = SyncOptions()
    ) throws(SyncError) -> SyncDevice {
        try setUp(
            directory: directory, backend: backend, store: store, storeURL: storeURL, name: name, options: options
        ) { (device, hasCircle) throws(SyncError) in
            guard !hasCircle else {
                throw SyncError(
                    .circle,
                    "the store \(PostgresStore.hidingPassword(storeURL)) holds a sync circle already: join it with sync-join"
                )
            }
            try device.publishIdentity()
            let (keys, definition) = try EpochKeys.create(EpochID(number: 1, creator: device.deviceID))
            let share = try keys.share(with: device.identity.publicIdentity, id: device.deviceID)
            try device.append(.genesis) { entry in
                entry.member = device.identity.publicIdentity
                entry.epoch = definition
                entry.shares = [share]
            }
            try device.remember(keys)
        }
    }

    /// Asks to join the circle in `store`: writes this device's identity (its join request) and returns the
    /// device, whose join code (``revealJoinCodes()``, once a member answered) a trusted device approves. Until then ``syncOnce()`` only looks for the approval.
    ///
    /// With `circleCode` (``SyncStatus/circleCode`` as a trusted device shows it), the device accepts an approval
    /// only into the circle with that code, so a store that made up a circle of its own to approve it is refused
    /// before anything is sent.
    public static func join(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, storeURL: String, name: String,
        circleCode: String? = nil, options: SyncOptions = SyncOptions()
    ) throws(SyncError) -> SyncDevice {
        var expected: String?
        if let circleCode {
            guard
                let code = PublicIdentity.normalizedCode(circleCode, characters: PublicIdentity.circleCodeLength)
            else {
                throw SyncError(
                    .invalidArgument,
                    "\"\(circleCode)\" is not a circle code (twenty letters and digits, as XXXXX-XXXXX-XXXXX-XXXXX)")
            }
            expected = code
        }
        return try setUp(
            directory: directory, backend: backend, store: store, storeURL: storeURL, name: name, options: options
        ) { (device, hasCircle) throws(SyncError) in
            guard hasCircle else {
                throw SyncError(
                    .circle,
                    "the store \(PostgresStore.hidingPassword(storeURL)) holds no sync circle: create one with sync-init"
                )
            }
            if let expected { try device.state.setText(expected, for: Meta.expectedCircle) }
            let nonce = try JoinPairing.nonce()
            try device.state.setValue(nonce, for: Meta.joinNonce)
            try device.publishIdentity(commitment: try JoinPairing.commitment(to: nonce))
        }
    }

    /// Makes the sync state, reads the store, and runs `finish` (told whether the store holds a circle); when
    /// anything fails, the sync state is removed again.
    private static func setUp(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, storeURL: String, name: String,
        options: SyncOptions, finish: (SyncDevice, Bool) throws(SyncError) -> Void
    ) throws(SyncError) -> SyncDevice {
        let device = try makeState(
            directory: directory, backend: backend, store: store, storeURL: storeURL, name: name, options: options)
        do {
            try device.withLock { () throws(SyncError) in
                try device.pull()
                try finish(device, !(try device.trust().isEmpty))
            }
        } catch {
            device.discard()
            throw error
        }
        return device
    }

    private static func makeState(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, storeURL: String, name: String,
        options: SyncOptions
    ) throws(SyncError) -> SyncDevice {
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains(where: \.isNewline) else {
            throw SyncError(.invalidArgument, "the device name \"\(name)\" must be 1 to 64 bytes on one line")
        }
        // The keychain must exist: its device key wraps the sync keys.
        _ = try keychain("cannot open the keychain in \(directory.path)") { () throws(EngineError) -> KeybagStatus in
            try backend.keybagStatus()
        }
        let (identity, agreement) = try DeviceIdentity.generate(name: name)
        let localHashKey = try keychain("cannot make the sync hash key") { () throws(EngineError) -> SecretKey in
            try SecretKey.random()
        }
        let state = try SyncDatabase.create(in: directory)
        do {
            try storeKeys(state, identity: identity, agreement: agreement, localHashKey: localHashKey, backend: backend)
            try state.transaction { () throws(SyncError) in
                try state.setText(name, for: Meta.name)
                try state.setInteger(0, for: Meta.feedCursor)
            }
            try saveStoreURL(storeURL, in: state, backend: backend)
            return try SyncDevice(
                directory: directory, backend: backend, store: store, options: options, state: state,
                identity: identity, localHashKey: localHashKey)
        } catch {
            unlink(state.path)
            throw error
        }
    }

    /// Removes the sync state of a set-up that failed (the keychain's items are untouched).
    private func discard() {
        Self.discard(state)
    }

    /// Writes this device's identity record, unless it is there.
    private func publishIdentity(commitment: Data? = nil) throws(SyncError) {
        let name = RecordName.identity(deviceID)
        let bytes = try SignedRecord.seal(
            IdentityRecord(identity: identity.publicIdentity, commitment: commitment), name: name,
            signer: identity.signing)
        _ = try storeCall { () throws(SyncStoreError) -> Bool in try store.putIfAbsent(name, bytes) }
    }

    /// The code of the circle this device founds (``createCircle(directory:backend:store:storeURL:name:options:)``):
    /// what `sync-join --circle` takes on a new device.
    public var circleCode: String {
        (try? identity.publicIdentity.circleCode) ?? ""
    }

    /// This device's name.
    public var name: String { identity.name }

    /// Runs `body` holding the device's lock.
    func withLock<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The names of the sync state's values.
    enum Meta {
        /// The first form's private keys, wrapped by the device key alone (upgraded on open, then deleted).
        static let agreementKey = "agreement_key"
        static let signingKey = "signing_key"
        /// This device's public identity (JSON).
        static let publicIdentity = "public_identity"
        /// The agreement private key, under `ak`.
        static let agreementKeyA = "agreement_key_a"
        /// The signing seed, under `ck`.
        static let signingKeyC = "signing_key_c"
        /// The local hash key, under `ck`.
        static let localHashKeyC = "local_hash_key_c"
        /// A random key under `dk`: it stops opening when the keychain is erased.
        static let eraseSentinel = "erase_sentinel_d"
        static let name = "name"
        /// The store URL with its password hidden (``PostgresStore/hidingPassword(_:)``); an older sync state's
        /// whole URL, until ``storeURL(in:backend:)`` seals it.
        static let storeURL = "store_url"
        /// The whole store URL, sealed under the key in ``storeURLKey`` (SyncDevice+StoreURL.swift).
        static let storeURLSealed = "store_url_sealed"
        /// The key of ``storeURLSealed``, under `ck`.
        static let storeURLKey = "store_url_key_c"
        static let clock = "clock"
        static let feedCursor = "feed_cursor"
        static let needsResync = "needs_resync"
        static let expectedCircle = "expected_circle"
        /// The founder of the circle this device belongs to, pinned once it is a member (``TrustState``).
        static let founder = "founder"
        /// A joining device's pairing nonce, committed to in its join request (``JoinPairing``).
        static let joinNonce = "join_nonce"
    }
}
