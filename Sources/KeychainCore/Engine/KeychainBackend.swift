import Foundation

/// The one seam between the APIs (`Security`, `Keychain`, `FileProtection`, the `security` command) and a
/// keychain: the embedded ``Engine`` today, a client of the keychain daemon later. Get one from
/// ``KeychainBackends/backend(for:options:)``, which picks the kind for a keychain directory.
///
/// Every request, result and error is a plain `Codable` value, so a daemon client can send it over a socket and
/// give back exactly what the engine would. The one exception is a file key (``SecretKey``), which is never
/// encoded by a generic coder: a client sends its bytes over its own channel.
///
/// # Implementation requirements
///
/// An implementation must keep every promise below; the backend conformance suite in the tests checks them on each
/// kind, and an API written against this protocol relies on them and on nothing else.
///
/// - **Thread safety.** Any number of threads and tasks may call any requirement at once. Each call is atomic
///   with respect to the others: a reader sees a write wholly or not at all. Calls may block (an `fsync` on every
///   write, Argon2id on every passcode operation); callers keep them off Swift's cooperative pool.
/// - **All or nothing.** A call that throws has changed nothing: no item, attribute, secret, passcode or attempt
///   count is half-written. An add of several items, an update or a delete of several matches, and
///   ``addOrUpdate(_:for:)`` commit in one transaction. The only writes a failing call keeps are those that are
///   its purpose: a wrong passcode is counted (and may erase the keychain, see ``setEraseAfter(failures:passcode:)``).
/// - **Durability at return.** Once a write returns, it survives a crash of the process and, on disk, a loss of
///   power: it was committed with a full sync. A write that has not returned may be lost, but never half.
/// - **Who may see what.** Items are those of the caller's access groups only (``Caller``): an add or a query
///   naming a group the caller lacks is ``EngineError/Code/missingEntitlement``; a query naming none searches
///   all of the caller's groups; an add naming none goes to ``Caller/defaultGroup``.
/// - **Lock state.** Items of a protection class whose key is not loaded cannot be read, added, changed or
///   deleted: ``EngineError/Code/interactionNotAllowed``. Class keys for ``ProtectionClass/Availability/always``
///   are always loaded, ``ProtectionClass/Availability/afterFirstUnlock`` from the first unlock on, and
///   ``ProtectionClass/Availability/whileUnlocked`` while unlocked. Without a passcode everything is loaded.
///   Each backend instance has one lock state, shared by every caller of it.
/// - **Limits.** A secret holds at most 16 MiB (``EngineError/Code/dataTooLarge``), an item's attributes at most
///   1 MiB in all (``EngineError/Code/dataTooLarge``); integer attributes are 0 through `UInt32.max`
///   (``EngineError/Code/param``). After ``PasscodePolicy/freeAttempts`` wrong passcodes in a row each attempt
///   waits (``PasscodePolicy/waits``), refused meanwhile with ``EngineError/Code/interactionNotAllowed``. Through
///   keychaind one reply carries at most 48 MiB: a query whose matches take more is
///   ``EngineError/Code/dataTooLarge`` naming the limit; a write past the user's quota of items or bytes is
///   ``EngineError/Code/allocate`` naming it; a daemon at its limit of the user's connections, or one that does
///   not answer within the client's timeout (30 s), is ``EngineError/Code/notAvailable`` saying so.
/// - **Refusals.** Every refusal is an ``EngineError`` whose message names the key or value at fault:
///   - ``EngineError/Code/param``: a malformed request (an attribute of the wrong type, a match limit on an
///     update or delete, an empty update, a synchronizable item with a this-device-only class, an empty passcode);
///   - ``EngineError/Code/noSuchAttribute``: an attribute the item's class does not have;
///   - ``EngineError/Code/duplicateItem``: an add, or an update's move, onto an existing primary key (access
///     group, synchronizable, and the class's ``ItemClass/primaryKey``);
///   - ``EngineError/Code/itemNotFound``: a query, update or delete that matches nothing;
///   - ``EngineError/Code/decode``: a stored item that fails authentication (when nothing else matched), a file
///     key that does not unwrap, or a database rolled back or damaged (then every item operation is refused;
///     ``verify()`` still reports);
///   - ``EngineError/Code/authFailed``: a wrong passcode, or a passcode operation without the current one;
///   - ``EngineError/Code/interactionNotAllowed``: a locked class, or passcode entry suspended after failures;
///   - ``EngineError/Code/diskFull``, ``EngineError/Code/ioError``, ``EngineError/Code/writePermission``: the
///     file system refused, and nothing was changed;
///   - ``EngineError/Code/invalidKeychain``, ``EngineError/Code/noSuchKeychain``: the keychain's files are not a
///     keychain, or there is none.
public protocol KeychainBackend: Sendable {
    // MARK: Items

    /// Adds an item and returns it as stored: the access group defaults to the caller's default group, the
    /// protection class to ``ProtectionClass/default``, synchronizable to `false`, and the dates are now.
    @discardableResult
    func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item

    /// Adds every item, all or nothing, and returns them as stored, in order. Each follows the rules of
    /// ``add(_:for:)``; one refusal (a duplicate of a stored item or of an earlier one in `items`, above all) adds
    /// none of them.
    @discardableResult
    func add(_ items: [NewItem], for caller: Caller) throws(EngineError) -> [Item]

    /// Adds an item or, when one with its primary key exists (access group and synchronizable after their
    /// defaults), writes the item's attributes and secret over it, in one transaction, and returns it as stored.
    /// The stored item keeps the attributes `item` does not name, its creation date and its persistent reference;
    /// a change of protection class rewraps its key. Either step's refusal is thrown (a locked class is
    /// ``EngineError/Code/interactionNotAllowed``, whether the old or the new one).
    @discardableResult
    func addOrUpdate(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item

    /// Returns the items a query matches, up to its limit (at least one, or ``EngineError/Code/itemNotFound``).
    /// Each carries its attributes only when the query returns ``ReturnOptions/attributes``, its data only with
    /// ``ReturnOptions/data``. A locked candidate fails the search (``EngineError/Code/interactionNotAllowed``).
    func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item]

    /// Changes every item a query matches, all or nothing, and returns how many; `mdat` becomes now.
    func update(_ query: ItemQuery, with changes: ItemChanges, for caller: Caller) throws(EngineError) -> Int

    /// Deletes every item a query matches, all or nothing, and returns how many.
    func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int

    // MARK: Keybag

    /// The keybag's state. Works in every lock state.
    func keybagStatus() throws(EngineError) -> KeybagStatus
    /// Loads every class key after checking the passcode (no effect without one). A wrong one is
    /// ``EngineError/Code/authFailed`` and counts towards the waits and the erase. Passcodes travel as
    /// ``Passcode`` (guarded memory), from the prompt to Argon2id; the `String` forms are conveniences.
    func unlock(passcode: Passcode) throws(EngineError)
    /// Checks the passcode as ``unlock(passcode:)`` does (a wrong one is ``EngineError/Code/authFailed`` and counts
    /// towards the waits and the erase) and changes no lock state: `LAContext.evaluatePolicy` proves the user is
    /// there, it does not unlock the keychain. Throws ``EngineError/Code/authFailed`` when no passcode is set.
    func checkPasscode(_ passcode: Passcode) throws(EngineError)
    /// Discards the keys of the classes that need the unlocked state. No effect without a passcode.
    func lock() throws(EngineError)
    /// Sets the passcode (`current` is `nil` when none is set) or changes it; the keychain is unlocked afterwards.
    func setPasscode(_ passcode: Passcode, current: Passcode?) throws(EngineError)
    /// Removes the passcode, deleting the ``ProtectionClass/whenPasscodeSetThisDeviceOnly`` items.
    func removePasscode(current: Passcode) throws(EngineError)
    /// Erases the keychain after `failures` consecutive wrong passcodes (`0`: never; otherwise more than
    /// ``PasscodePolicy/freeAttempts``, else ``EngineError/Code/param``). Setting, raising or lowering it needs the
    /// current `passcode` when one is set (`nil` is ``EngineError/Code/authFailed``, naming it), checked as an
    /// unlock checks it: a wrong one is ``EngineError/Code/authFailed`` and counts towards the waits and the
    /// erase. Through keychaind, root may leave it out.
    func setEraseAfter(failures: Int, passcode: Passcode?) throws(EngineError)

    // MARK: File keys (protected files, DESIGN §7)

    /// Whether files of a class can be opened (their key unwrapped) in the current lock state.
    func canOpenFiles(of fileClass: FileKeyClass) -> Bool
    /// Wraps a file key for a class, binding `context` (the header fields that must not change) and this keybag.
    /// Throws ``EngineError/Code/interactionNotAllowed`` when the class cannot create files in the current state.
    /// Through keychaind the key is also bound to the caller's default access group.
    func wrapFileKey(_ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> Data
    /// Unwraps a file key wrapped by ``wrapFileKey(_:for:context:)`` with the same class and context. Throws
    /// ``EngineError/Code/interactionNotAllowed`` when the class is unavailable and ``EngineError/Code/decode``
    /// when the wrapped key, the class, the context or the keybag differ from those it was wrapped with. Through
    /// keychaind, a key bound to an access group opens only for a caller entitled to it, and one bound to none only
    /// for the user's unregistered programs and root (else ``EngineError/Code/missingEntitlement``).
    func unwrapFileKey(_ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> SecretKey
    /// A tag (32 bytes) that authenticates a file header, computable in every lock state, so a header's class and
    /// fields can be trusted before the file key is available.
    func fileHeaderTag(for header: [UInt8]) throws(EngineError) -> Data
    /// Whether `tag` is the tag of `header` (compared in constant time).
    func isValidFileHeaderTag(_ tag: Data, for header: [UInt8]) throws(EngineError) -> Bool

    // MARK: Integrity

    /// Checks every row and the change log; reads only, and works in every lock state. Through keychaind only root
    /// may (the report covers every app's items): anyone else gets ``EngineError/Code/missingEntitlement``.
    func verify() throws(EngineError) -> VerificationReport

    // MARK: Change feed

    /// The changes after `sequence` that `caller` may see (only its access groups), oldest first, at most
    /// `limit`: attributes only, never data, readable in every lock state. A sequence the feed no longer holds
    /// every later change of throws the resync error (``EngineError/resyncSequence``).
    func changes(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError) -> ChangeBatch
    /// The newest change's sequence, where a reader that starts following now begins. Through keychaind, the newest
    /// of the caller's own changes (or the compaction horizon, if later): nothing of other groups' writes.
    func latestChangeSequence() throws(EngineError) -> Int64
    /// Calls `handler` whenever the feed may have grown (any writer, any process), until the observation ends.
    /// Through keychaind, only when it grew by a change the caller may see.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation
}

/// The passcode requirements with the passcode given as text: conveniences for callers that hold a `String` already
/// (tests, tools given one in an argument). The text's UTF-8 bytes are copied into a ``Passcode``.
extension KeychainBackend {
    /// ``unlock(passcode:)-(Passcode)`` with the passcode's text.
    public func unlock(passcode: String) throws(EngineError) {
        try unlock(passcode: Passcode(copying: passcode))
    }

    /// ``setPasscode(_:current:)-(Passcode,Passcode?)`` with the passcodes' text.
    public func setPasscode(_ passcode: String, current: String?) throws(EngineError) {
        let currentPasscode = try current.map { (text) throws(EngineError) in try Passcode(copying: text) }
        try setPasscode(Passcode(copying: passcode), current: currentPasscode)
    }

    /// ``removePasscode(current:)-(Passcode)`` with the passcode's text.
    public func removePasscode(current: String) throws(EngineError) {
        try removePasscode(current: Passcode(copying: current))
    }

    /// ``setEraseAfter(failures:passcode:)-(Int,Passcode?)`` with the passcode's text.
    public func setEraseAfter(failures: Int, passcode: String?) throws(EngineError) {
        let current = try passcode.map { (text) throws(EngineError) in try Passcode(copying: text) }
        try setEraseAfter(failures: failures, passcode: current)
    }

    /// Sets the erase threshold of a keychain that has no passcode; with one set, it is refused
    /// (``EngineError/Code/authFailed``): the current passcode must vouch for the change.
    @available(*, deprecated, message: "pass the current passcode: setEraseAfter(failures:passcode:)")
    public func setEraseAfter(failures: Int) throws(EngineError) {
        try setEraseAfter(failures: failures, passcode: Optional<Passcode>.none)
    }
}

/// The keybag's state as a caller sees it.
public struct KeybagStatus: Sendable, Equatable, Codable {
    /// The keybag's identifier (protected files record it).
    public var keybagID: UUID
    /// Whether a passcode is set.
    public var hasPasscode: Bool
    /// Whether the classes that need the unlocked state are unavailable.
    public var isLocked: Bool
    /// Whether the keybag has been unlocked since it was opened.
    public var hasBeenUnlocked: Bool
    /// Consecutive wrong passcodes.
    public var failedAttempts: Int
    /// When the next passcode attempt is allowed, if a wait is running.
    public var retryAfter: Date?
    /// After how many consecutive wrong passcodes the keychain is erased (`nil`: never).
    public var eraseAfter: Int?
    /// The current lock epoch, which changes at every lock: a caller that keeps a passcode for reuse records it,
    /// and the keychain refuses the passcode once locked since (``ItemAuthentication/passcodeEpoch``).
    public var lockEpoch: UInt64 = 0

    /// A status with every field (the engine's, and keychaind's wire).
    package init(
        keybagID: UUID, hasPasscode: Bool, isLocked: Bool, hasBeenUnlocked: Bool, failedAttempts: Int,
        retryAfter: Date?, eraseAfter: Int?, lockEpoch: UInt64 = 0
    ) {
        self.keybagID = keybagID
        self.hasPasscode = hasPasscode
        self.isLocked = isLocked
        self.hasBeenUnlocked = hasBeenUnlocked
        self.failedAttempts = failedAttempts
        self.retryAfter = retryAfter
        self.eraseAfter = eraseAfter
        self.lockEpoch = lockEpoch
    }
}
