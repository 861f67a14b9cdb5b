import Foundation

/// The requirements the APIs call, each one ``BackendRequest`` carried out by ``KeychainBackend/perform(_:for:)``.
extension KeychainBackend {
    // MARK: Items

    /// Adds an item and returns it as stored: the access group defaults to the caller's default group, the
    /// protection class to ``ProtectionClass/default``, synchronizable to `false`, and the dates are now.
    @discardableResult
    public func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        try single(written(.add(item), for: caller), "add")
    }

    /// Adds every item, all or nothing, and returns them as stored, in order. Each follows the rules of
    /// ``add(_:for:)``; one refusal (a duplicate of a stored item or of an earlier one in `items`, above all) adds
    /// none of them.
    @discardableResult
    public func add(_ items: [NewItem], for caller: Caller) throws(EngineError) -> [Item] {
        try written(.addBatch(items), for: caller).items
    }

    /// Adds an item or, when one with its primary key exists (access group and synchronizable after their
    /// defaults), writes the item's attributes and secret over it, in one transaction, and returns it as stored.
    /// The stored item keeps the attributes `item` does not name, its creation date and its persistent reference;
    /// a change of protection class rewraps its key. Either step's refusal is thrown (a locked class is
    /// ``EngineError/Code/interactionNotAllowed``, whether the old or the new one).
    @discardableResult
    public func addOrUpdate(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        try single(written(.addOrUpdate(item), for: caller), "addOrUpdate")
    }

    /// Returns the items a query matches, up to its limit (at least one, or ``EngineError/Code/itemNotFound``).
    /// Each carries its attributes only when the query returns ``ReturnOptions/attributes``, its data only with
    /// ``ReturnOptions/data``. A locked candidate fails the search (``EngineError/Code/interactionNotAllowed``).
    public func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        guard case .items(let items) = try perform(.copyMatching(query), for: caller) else {
            throw unexpectedReply(to: "copyMatching")
        }
        return items
    }

    /// Changes every item a query matches, all or nothing, and returns how many; `mdat` becomes now.
    public func update(_ query: ItemQuery, with changes: ItemChanges, for caller: Caller) throws(EngineError) -> Int {
        try written(.update(query, changes), for: caller).items.count
    }

    /// Deletes every item a query matches, all or nothing, and returns how many.
    public func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int {
        try written(.delete(query), for: caller).items.count
    }

    /// Uses the one private key item a query finds without returning it (a signature, a decryption, a key exchange
    /// or its public half); its access control applies as to a read of its secret.
    public func useKey(_ query: ItemQuery, _ use: KeyUse, for caller: Caller) throws(EngineError) -> Data {
        guard case .data(let output) = try perform(.useKey(query, use), for: caller) else {
            throw unexpectedReply(to: "useKey")
        }
        return output
    }

    /// Makes a key pair inside the keychain and stores its halves (private first), all or nothing; a
    /// non-extractable private key comes back without its data.
    public func generateKey(_ generation: KeyGeneration, for caller: Caller) throws(EngineError) -> [Item] {
        try written(.generateKey(generation), for: caller).items
    }

    // MARK: Keybag

    /// The keybag's state. Works in every lock state.
    public func keybagStatus() throws(EngineError) -> KeybagStatus {
        guard case .keybagStatus(let status) = try perform(.keybagStatus, for: .wholeKeychain) else {
            throw unexpectedReply(to: "keybagStatus")
        }
        return status
    }

    /// Loads every class key after checking the passcode (no effect without one). A wrong one is
    /// ``EngineError/Code/authFailed`` and counts towards the waits and the erase. Passcodes travel as
    /// ``Passcode`` (guarded memory), from the prompt to Argon2id; the `String` forms are conveniences.
    public func unlock(passcode: Passcode) throws(EngineError) {
        try expectDone(.unlock(passcode))
    }

    /// Checks the passcode as ``unlock(passcode:)-(Passcode)`` does (a wrong one is ``EngineError/Code/authFailed`` and counts
    /// towards the waits and the erase) and changes no lock state: `LAContext.evaluatePolicy` proves the user is
    /// there, it does not unlock the keychain. Throws ``EngineError/Code/authFailed`` when no passcode is set.
    public func checkPasscode(_ passcode: Passcode) throws(EngineError) {
        try expectDone(.checkPasscode(passcode))
    }

    /// Discards the keys of the classes that need the unlocked state. No effect without a passcode.
    public func lock() throws(EngineError) {
        try expectDone(.lock)
    }

    /// Sets the passcode (`current` is `nil` when none is set) or changes it; the keychain is unlocked afterwards.
    public func setPasscode(_ passcode: Passcode, current: Passcode?) throws(EngineError) {
        try expectDone(.setPasscode(passcode, current: current))
    }

    /// Removes the passcode, deleting the ``ProtectionClass/whenPasscodeSetThisDeviceOnly`` items.
    public func removePasscode(current: Passcode) throws(EngineError) {
        try expectDone(.removePasscode(current: current))
    }

    /// Erases the keychain after `failures` consecutive wrong passcodes (`0`: never; otherwise more than
    /// ``PasscodePolicy/freeAttempts``, else ``EngineError/Code/param``). Setting, raising or lowering it needs the
    /// current `passcode` when one is set (`nil` is ``EngineError/Code/authFailed``, naming it), checked as an
    /// unlock checks it: a wrong one is ``EngineError/Code/authFailed`` and counts towards the waits and the
    /// erase. Through keychaind, root may leave it out.
    public func setEraseAfter(failures: Int, passcode: Passcode?) throws(EngineError) {
        try expectDone(.setEraseAfter(failures, passcode: passcode))
    }

    // MARK: File keys (protected files, DESIGN §7)

    /// Whether files of a class can be opened (their key unwrapped) in the current lock state.
    public func canOpenFiles(of fileClass: FileKeyClass) -> Bool {
        guard case .bool(let can)? = try? perform(.canOpenFiles(fileClass), for: .wholeKeychain) else { return false }
        return can
    }

    /// Wraps a file key for a class, binding `context` (the header fields that must not change) and this keybag.
    /// Throws ``EngineError/Code/interactionNotAllowed`` when the class cannot create files in the current state.
    /// Through keychaind the key is also bound to the caller's default access group.
    public func wrapFileKey(_ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> Data
    {
        guard case .data(let wrapped) = try perform(.wrapFileKey(key, fileClass, context: context), for: .wholeKeychain)
        else { throw unexpectedReply(to: "wrapFileKey") }
        return wrapped
    }

    /// Unwraps a file key wrapped by ``wrapFileKey(_:for:context:)`` with the same class and context. Throws
    /// ``EngineError/Code/interactionNotAllowed`` when the class is unavailable and ``EngineError/Code/decode``
    /// when the wrapped key, the class, the context or the keybag differ from those it was wrapped with. Through
    /// keychaind, a key bound to an access group opens only for a caller entitled to it, and one bound to none only
    /// for the user's unregistered programs and root (else ``EngineError/Code/missingEntitlement``).
    public func unwrapFileKey(_ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError)
        -> SecretKey
    {
        guard
            case .key(let key) = try perform(.unwrapFileKey(wrapped, fileClass, context: context), for: .wholeKeychain)
        else { throw unexpectedReply(to: "unwrapFileKey") }
        return key
    }

    /// A tag (32 bytes) that authenticates a file header, computable in every lock state, so a header's class and
    /// fields can be trusted before the file key is available.
    public func fileHeaderTag(for header: [UInt8]) throws(EngineError) -> Data {
        guard case .data(let tag) = try perform(.fileHeaderTag(header), for: .wholeKeychain) else {
            throw unexpectedReply(to: "fileHeaderTag")
        }
        return tag
    }

    /// Whether `tag` is the tag of `header` (compared in constant time).
    public func isValidFileHeaderTag(_ tag: Data, for header: [UInt8]) throws(EngineError) -> Bool {
        guard case .bool(let valid) = try perform(.isValidFileHeaderTag(tag, header), for: .wholeKeychain) else {
            throw unexpectedReply(to: "isValidFileHeaderTag")
        }
        return valid
    }

    // MARK: Integrity

    /// Checks every row and the change log; reads only, and works in every lock state. Through keychaind only root
    /// may (the report covers every app's items): anyone else gets ``EngineError/Code/missingEntitlement``.
    public func verify() throws(EngineError) -> VerificationReport {
        guard case .report(let report) = try perform(.verify, for: .wholeKeychain) else {
            throw unexpectedReply(to: "verify")
        }
        return report
    }

    // MARK: Change feed

    /// The changes after `sequence` that `caller` may see (only its access groups), oldest first, at most
    /// `limit`: attributes only, never data, readable in every lock state. A sequence the feed no longer holds
    /// every later change of throws the resync error (``EngineError/resyncSequence``).
    public func changes(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError) -> ChangeBatch {
        guard case .changes(let batch) = try perform(.changes(since: sequence, limit: limit), for: caller) else {
            throw unexpectedReply(to: "changes")
        }
        return batch
    }

    /// The newest change's sequence, where a reader that starts following now begins. Through keychaind, the newest
    /// of the caller's own changes (or the compaction horizon, if later): nothing of other groups' writes.
    public func latestChangeSequence() throws(EngineError) -> Int64 {
        guard case .sequence(let sequence) = try perform(.latestChangeSequence, for: .wholeKeychain) else {
            throw unexpectedReply(to: "latestChangeSequence")
        }
        return sequence
    }

    // MARK: Writes with their results

    /// Carries out several item writes in one transaction and one sync, each alone in its effect: the outcome of
    /// each, in order (``BackendRequest/writeEach(_:)``).
    public func writeEach(_ writes: [BackendRequest], for caller: Caller) throws(EngineError) -> [Result<
        WriteResult, EngineError
    >] {
        guard case .writes(let outcomes) = try perform(.writeEach(writes), for: caller), outcomes.count == writes.count
        else { throw unexpectedReply(to: "writeEach") }
        return outcomes
    }

    /// Carries out a write (``BackendRequest/isItemWrite``) and returns what it stored and the change sequence it
    /// took.
    public func written(_ write: BackendRequest, for caller: Caller) throws(EngineError) -> WriteResult {
        guard case .written(let result) = try perform(write, for: caller) else {
            throw unexpectedReply(to: write.name)
        }
        return result
    }

    private func single(_ result: WriteResult, _ request: String) throws(EngineError) -> Item {
        guard let item = result.items.first, result.items.count == 1 else { throw unexpectedReply(to: request) }
        return item
    }

    private func expectDone(_ request: BackendRequest) throws(EngineError) {
        guard case .done = try perform(request, for: .wholeKeychain) else { throw unexpectedReply(to: request.name) }
    }

    private func unexpectedReply(to request: String) -> EngineError {
        EngineError(.internalComponent, "the keychain answered \(request) with a reply of another kind")
    }
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

extension Caller {
    /// The caller named for a request on the keychain as a whole (``BackendRequest/actsForCaller`` `false`), which
    /// every backend ignores: keychaind decides who is calling, and these requests reach no item by access group.
    static let wholeKeychain = Caller(applicationIdentifier: "keychain", accessGroups: ["keychain"])
}
