import Foundation
import KeychainCore
import Synchronization

/// A backend that passes every call to an engine and, once armed, runs an action right after the next change-feed
/// read that finds nothing new returns, or right after the next item write: a user's write landing in the middle of
/// a sync pass (between sending and applying; between applying an item and reading it back).
final class InterposedBackend: KeychainBackend {
    let engine: Engine
    private let pending = Mutex<(@Sendable () -> Void)?>(nil)
    private let pendingAfterWrite = Mutex<(@Sendable () -> Void)?>(nil)

    init(_ engine: Engine) { self.engine = engine }

    /// Runs `action` after the next `changes(since:for:limit:)`.
    func afterNextFeedRead(_ action: @escaping @Sendable () -> Void) { pending.withLock { $0 = action } }

    /// Runs `action` after the next add or update has returned.
    func afterNextWrite(_ action: @escaping @Sendable () -> Void) { pendingAfterWrite.withLock { $0 = action } }

    private func wrote<Result>(_ result: Result) -> Result {
        let action = pendingAfterWrite.withLock { state -> (@Sendable () -> Void)? in
            defer { state = nil }
            return state
        }
        action?()
        return result
    }

    func changes(since sequence: Int64, for caller: Caller, limit: Int) throws(EngineError) -> ChangeBatch {
        let batch = try engine.changes(since: sequence, for: caller, limit: limit)
        if batch.changes.isEmpty,
            let action = pending.withLock({ state -> (@Sendable () -> Void)? in
                defer { state = nil }
                return state
            })
        {
            action()
        }
        return batch
    }

    func add(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        wrote(try engine.add(item, for: caller))
    }
    func add(_ items: [NewItem], for caller: Caller) throws(EngineError) -> [Item] {
        try engine.add(items, for: caller)
    }
    func addOrUpdate(_ item: NewItem, for caller: Caller) throws(EngineError) -> Item {
        try engine.addOrUpdate(item, for: caller)
    }
    func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        try engine.copyMatching(query, for: caller)
    }
    func update(_ query: ItemQuery, with changes: ItemChanges, for caller: Caller) throws(EngineError) -> Int {
        wrote(try engine.update(query, with: changes, for: caller))
    }
    func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int {
        try engine.delete(query, for: caller)
    }
    func keybagStatus() throws(EngineError) -> KeybagStatus { try engine.keybagStatus() }
    func unlock(passcode: Passcode) throws(EngineError) { try engine.unlock(passcode: passcode) }
    func checkPasscode(_ passcode: Passcode) throws(EngineError) { try engine.checkPasscode(passcode) }
    func lock() throws(EngineError) { engine.lock() }
    func setPasscode(_ passcode: Passcode, current: Passcode?) throws(EngineError) {
        try engine.setPasscode(passcode, current: current)
    }
    func removePasscode(current: Passcode) throws(EngineError) { try engine.removePasscode(current: current) }
    func setEraseAfter(failures: Int, passcode: Passcode?) throws(EngineError) {
        try engine.setEraseAfter(failures: failures, passcode: passcode)
    }
    func canOpenFiles(of fileClass: FileKeyClass) -> Bool { engine.canOpenFiles(of: fileClass) }
    func wrapFileKey(_ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> Data {
        try engine.wrapFileKey(key, for: fileClass, context: context)
    }
    func unwrapFileKey(_ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError)
        -> SecretKey
    {
        try engine.unwrapFileKey(wrapped, for: fileClass, context: context)
    }
    func fileHeaderTag(for header: [UInt8]) throws(EngineError) -> Data { try engine.fileHeaderTag(for: header) }
    func isValidFileHeaderTag(_ tag: Data, for header: [UInt8]) throws(EngineError) -> Bool {
        try engine.isValidFileHeaderTag(tag, for: header)
    }
    func verify() throws(EngineError) -> VerificationReport { try engine.verify() }
    func latestChangeSequence() throws(EngineError) -> Int64 { try engine.latestChangeSequence() }
    func observeChanges(_ handler: @escaping @Sendable () -> Void) throws(EngineError) -> ChangeObservation {
        try engine.observeChanges(handler)
    }
}
