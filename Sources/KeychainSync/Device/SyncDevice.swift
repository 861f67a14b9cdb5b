import Foundation
import KeychainCore

/// One device of a user's sync circle: a keychain directory, its keychain backend, and the store the circle shares
/// (DESIGN §12).
///
/// Create the circle on the first device with ``createCircle(directory:backend:store:storeURL:name:options:)``;
/// on each other device ``join(directory:backend:store:storeURL:name:options:)`` shows a ``joinCode`` that a
/// trusted device passes to ``approve(code:)``. ``syncOnce()`` then exchanges synchronizable items both ways;
/// ``follow(onProblem:)`` keeps doing it as the store and the keychain change.
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
    /// The key of the local hashes (content and primary keys), derived from the device's private key.
    let localHashKey: SecretKey
    var clock: HybridTime
    /// The identities of the store's devices read so far (self-certifying: the id is a digest of the keys).
    var knownIdentities: [String: PublicIdentity] = [:]
    /// Epoch keys opened so far.
    var epochKeys: [EpochID: EpochKeys] = [:]
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
        identity: DeviceIdentity
    ) throws(SyncError) {
        self.directory = directory
        self.backend = backend
        self.store = store
        self.options = options
        self.state = state
        self.identity = identity
        deviceID = try identity.publicIdentity.deviceID
        localHashKey = try keychain("cannot derive the sync hash key") { () throws(EngineError) -> SecretKey in
            try KeyedHash.deriveKey(from: identity.agreement.privateKey, context: "swift-keychain sync local hashes")
        }
        clock = HybridTime(rawValue: try state.integer(Meta.clock) ?? 0)
    }

    /// Whether the keychain in `directory` is set up for sync.
    public static func isConfigured(in directory: URL) -> Bool {
        SyncDatabase.exists(in: directory)
    }

    /// The store URL the keychain in `directory` syncs through (to open the store before ``open(directory:backend:store:options:)``).
    public static func storeURL(in directory: URL) throws(SyncError) -> String {
        guard let url = try SyncDatabase.open(in: directory).text(Meta.storeURL) else {
            throw SyncError(.damaged, "the sync state in \(directory.path) names no store")
        }
        return url
    }

    /// Opens the sync state of a keychain set up by ``createCircle(directory:backend:store:storeURL:name:options:)``
    /// or ``join(directory:backend:store:storeURL:name:options:)``.
    public static func open(
        directory: URL, backend: any KeychainBackend, store: any SyncStore, options: SyncOptions = SyncOptions()
    ) throws(SyncError) -> SyncDevice {
        let state = try SyncDatabase.open(in: directory)
        guard let agreement = try state.value(Meta.agreementKey), let signing = try state.value(Meta.signingKey),
            let name = try state.text(Meta.name)
        else { throw SyncError(.damaged, "the sync state in \(directory.path) lacks the device's keys") }
        let identity = try DeviceIdentity.unwrap(agreement: agreement, signing: signing, name: name, in: directory)
        return try SyncDevice(
            directory: directory, backend: backend, store: store, options: options, state: state, identity: identity)
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
        }
    }

    /// Asks to join the circle in `store`: writes this device's identity (its join request) and returns the
    /// device, whose ``joinCode`` a trusted device approves. Until then ``syncOnce()`` only looks for the approval.
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
            try device.publishIdentity()
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
        let identity = try DeviceIdentity.generate(name: name)
        let wrapped = try identity.wrapped(in: directory)
        let state = try SyncDatabase.create(in: directory)
        do {
            try state.transaction { () throws(SyncError) in
                try state.setValue(wrapped.agreement, for: Meta.agreementKey)
                try state.setValue(wrapped.signing, for: Meta.signingKey)
                try state.setText(name, for: Meta.name)
                try state.setText(storeURL, for: Meta.storeURL)
                try state.setInteger(0, for: Meta.feedCursor)
            }
            return try SyncDevice(
                directory: directory, backend: backend, store: store, options: options, state: state,
                identity: identity)
        } catch {
            unlink(state.path)
            throw error
        }
    }

    /// Removes the sync state of a set-up that failed (the keychain's items are untouched).
    private func discard() {
        for suffix in ["", "-wal", "-shm"] { unlink(state.path + suffix) }
    }

    /// Writes this device's identity record, unless it is there.
    private func publishIdentity() throws(SyncError) {
        let name = RecordName.identity(deviceID)
        let bytes = try SignedRecord.seal(
            IdentityRecord(identity: identity.publicIdentity), name: name, signer: identity.signing)
        _ = try storeCall { () throws(SyncStoreError) -> Bool in try store.putIfAbsent(name, bytes) }
    }

    /// The code a trusted device approves this device by (derived from its public keys).
    public var joinCode: String {
        (try? identity.publicIdentity.joinCode) ?? ""
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
        static let agreementKey = "agreement_key"
        static let signingKey = "signing_key"
        static let name = "name"
        static let storeURL = "store_url"
        static let clock = "clock"
        static let feedCursor = "feed_cursor"
        static let needsResync = "needs_resync"
        static let expectedCircle = "expected_circle"
        /// The founder of the circle this device belongs to, pinned once it is a member (``TrustState``).
        static let founder = "founder"
    }
}
