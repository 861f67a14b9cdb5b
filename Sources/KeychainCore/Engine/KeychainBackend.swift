import Foundation

/// The one seam between the APIs (`Security`, `Keychain`, `FileProtection`, the `security` command, sync) and a
/// keychain: the embedded ``Engine``, or keychaind's client. Get one from `KeychainBackends` (module
/// `KeychainClient`), which picks the kind for a keychain.
///
/// The seam is written once, as a value: a backend implements one primitive, ``perform(_:for:)``, which carries out
/// a ``BackendRequest`` and answers a ``BackendReply``; the typed requirements the APIs call (``add(_:for:)-(NewItem,_)``,
/// ``copyMatching(_:for:)``, ``unlock(passcode:)-(Passcode)`` …) are an extension over it. keychaind's client sends
/// the request as it is and the daemon carries it out on its engine with the same primitive, so a new requirement
/// is one ``BackendRequest`` case (with its wire form) and one engine function.
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
///   its purpose: a wrong passcode is counted (and may erase the keychain, see ``setEraseAfter(failures:passcode:)-(Int,Passcode?)``).
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
    /// Carries out `request` for `caller` (whose access groups decide which items it reaches; requests on the
    /// keychain as a whole, ``BackendRequest/actsForCaller`` `false`, ignore it) and answers the reply its case
    /// names, or throws the refusal. The promises above hold for every request.
    func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply

    /// Calls `handler` whenever the feed may have grown (any writer, any process), until the observation ends.
    /// Through keychaind, only when it grew by a change the caller may see. (Not a request: it answers more than
    /// once.)
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation
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
