import Foundation
import KeychainCore
import KeychainWire

extension DaemonRequest {
    /// Whether the request is one of the ``KeychainBackend`` requirements (``carriedOut(on:for:)`` serves it).
    package var isBackendRequest: Bool {
        switch self {
        case .hello, .subscribe, .registerApp, .unregisterApp, .listApps, .describe: false
        default: true
        }
    }

    /// The reply to a backend requirement carried out on `backend` for `caller`, one to one: the requirement's
    /// result, or the error it threw. The daemon's own requests (``isBackendRequest`` is `false`) are refused with
    /// errSecParam. `make fuzz-daemon` drives decoded requests through here on an in-memory engine.
    package func carriedOut(on backend: some KeychainBackend, for caller: Caller) -> DaemonReply {
        do throws(EngineError) {
            return try reply(on: backend, for: caller)
        } catch {
            return .failure(error)
        }
    }

    private func reply(on backend: some KeychainBackend, for caller: Caller) throws(EngineError) -> DaemonReply {
        switch self {
        case .add(let item): return .item(try backend.add(item, for: caller))
        case .addBatch(let items): return .items(try backend.add(items, for: caller))
        case .addOrUpdate(let item): return .item(try backend.addOrUpdate(item, for: caller))
        case .copyMatching(let query): return .items(try backend.copyMatching(query, for: caller))
        case .update(let query, let changes): return .count(try backend.update(query, with: changes, for: caller))
        case .delete(let query): return .count(try backend.delete(query, for: caller))
        case .keybagStatus: return .keybagStatus(try backend.keybagStatus())
        case .unlock(let passcode): try backend.unlock(passcode: passcode)
        case .checkPasscode(let passcode): try backend.checkPasscode(passcode)
        case .lock: try backend.lock()
        case .setPasscode(let passcode, let current): try backend.setPasscode(passcode, current: current)
        case .removePasscode(let current): try backend.removePasscode(current: current)
        case .setEraseAfter(let failures, let passcode):
            try backend.setEraseAfter(failures: failures, passcode: passcode)
        case .canOpenFiles(let fileClass): return .bool(backend.canOpenFiles(of: fileClass))
        case .wrapFileKey(let bytes, let fileClass, let context):
            let key = try SecretKey(copying: bytes)
            return .data(try backend.wrapFileKey(key, for: fileClass, context: context))
        case .unwrapFileKey(let wrapped, let fileClass, let context):
            let key = try backend.unwrapFileKey(wrapped, for: fileClass, context: context)
            return .data(key.withUnsafeBytes { Data($0) })
        case .fileHeaderTag(let header): return .data(try backend.fileHeaderTag(for: header))
        case .isValidFileHeaderTag(let tag, let header):
            return .bool(try backend.isValidFileHeaderTag(tag, for: header))
        case .verify: return .report(try backend.verify())
        case .changes(let since, let limit):
            return .changes(try backend.changes(since: since, for: caller, limit: limit))
        case .latestChangeSequence: return .sequence(try backend.latestChangeSequence())
        case .hello, .subscribe, .registerApp, .unregisterApp, .listApps, .describe:
            throw EngineError(.param, "\(self) is not a keychain request")
        }
        return .done
    }
}
