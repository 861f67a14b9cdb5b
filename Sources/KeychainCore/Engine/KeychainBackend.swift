import Foundation

/// The one seam between the APIs (`Security`, `Keychain`) and a keychain: the embedded ``Engine`` or, later, a
/// client of the keychain daemon. Requests and results are plain values that can cross a socket.
public protocol KeychainBackend: Sendable {
    /// Adds an item and returns it as stored (with defaults filled in).
    func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item
    /// Returns the items a query matches (at least one, or ``EngineError/Code/itemNotFound``).
    func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item]
    /// Changes every item a query matches, all or nothing, and returns how many.
    func update(_ query: ItemQuery, with changes: ItemChanges, for caller: Caller) throws(EngineError) -> Int
    /// Deletes every item a query matches, all or nothing, and returns how many.
    func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int

    /// The keybag's state.
    func keybagStatus() throws(EngineError) -> KeybagStatus
    /// Loads every class key after checking the passcode.
    func unlock(passcode: String) throws(EngineError)
    /// Discards the keys of the classes that need the unlocked state.
    func lock() throws(EngineError)
    /// Sets the passcode (`current` is `nil` when none is set) or changes it.
    func setPasscode(_ passcode: String, current: String?) throws(EngineError)
    /// Removes the passcode, deleting the items that need one.
    func removePasscode(current: String) throws(EngineError)
    /// Whether items of a protection class can be read and written now.
    func isAvailable(_ protectionClass: ProtectionClass) -> Bool
    /// Erases the keychain after `failures` consecutive wrong passcodes (`0`: never).
    func setEraseAfter(failures: Int) throws(EngineError)
    /// Checks every row and the change log; reads only.
    func verify() throws(EngineError) -> VerificationReport

    // MARK: Change feed

    /// The changes after `sequence` that `caller` may see (only its access groups), oldest first, at most
    /// `limit`: attributes only, never data, readable in every lock state. A sequence the feed no longer holds
    /// every later change of throws the resync error (``EngineError/resyncSequence``).
    func changes(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError) -> ChangeBatch
    /// The newest change's sequence, where a reader that starts following now begins.
    func latestChangeSequence() throws(EngineError) -> Int64
    /// Calls `handler` whenever the feed may have grown (any writer, any process), until the observation ends.
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
}
