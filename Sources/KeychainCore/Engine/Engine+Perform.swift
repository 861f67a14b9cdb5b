import Foundation

extension Engine {
    /// Carries out one request of the seam: each case is one engine function (``KeychainBackend/perform(_:for:)``).
    public func perform(_ request: BackendRequest, for caller: Caller) throws(EngineError) -> BackendReply {
        switch request {
        case .add, .addBatch, .addOrUpdate, .update, .delete, .generateKey, .writeAll:
            return .written(try write(preparedWrite(request, for: caller)))
        case .copyMatching(let query): return .items(try copyMatching(query, for: caller))
        case .keybagStatus: return .keybagStatus(try keybagStatus())
        case .unlock(let passcode): try unlock(passcode: passcode)
        case .checkPasscode(let passcode): try checkPasscode(passcode)
        case .lock: lock()
        case .setPasscode(let passcode, let current): try setPasscode(passcode, current: current)
        case .removePasscode(let current): try removePasscode(current: current)
        case .setEraseAfter(let failures, let passcode): try setEraseAfter(failures: failures, passcode: passcode)
        case .canOpenFiles(let fileClass): return .bool(canOpenFiles(of: fileClass))
        case .wrapFileKey(let key, let fileClass, let context):
            return .data(try wrapFileKey(key, for: fileClass, context: context))
        case .unwrapFileKey(let wrapped, let fileClass, let context):
            return .key(try unwrapFileKey(wrapped, for: fileClass, context: context))
        case .fileHeaderTag(let header): return .data(try fileHeaderTag(for: header))
        case .isValidFileHeaderTag(let tag, let header): return .bool(try isValidFileHeaderTag(tag, for: header))
        case .verify: return .report(try verify())
        case .changes(let since, let limit): return .changes(try changes(since: since, for: caller, limit: limit))
        case .latestChangeSequence: return .sequence(try latestChangeSequence())
        case .writeEach(let writes): return .writes(commitTogether(writes.map { ($0, caller) }))
        case .useKey(let query, let use): return .data(try useKey(query, use, for: caller))
        }
        return .done
    }
}
