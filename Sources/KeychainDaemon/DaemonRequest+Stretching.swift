import KeychainCore
import KeychainWire

extension DaemonRequest {
    /// Whether carrying the request out may stretch a passcode or an application password with Argon2id (the
    /// keybag's cost: 192 MiB and a third of a second by default), so that it takes one of the user's turns at
    /// that (``UserLimits/passcodeChecks``). Every case is named, so that a new request must be decided here.
    var mayStretchPasscode: Bool {
        switch self {
        case .unlock, .checkPasscode, .setPasscode, .removePasscode: true
        case .setEraseAfter(_, let passcode): passcode != nil
        case .add(let item), .addOrUpdate(let item): item.authentication?.bringsSecret == true
        case .addBatch(let items): items.contains { $0.authentication?.bringsSecret == true }
        case .copyMatching(let query), .update(let query, _), .delete(let query):
            query.authentication?.bringsSecret == true
        case .hello, .keybagStatus, .lock, .canOpenFiles, .wrapFileKey, .unwrapFileKey,
            .fileHeaderTag, .isValidFileHeaderTag, .verify, .changes, .latestChangeSequence, .subscribe,
            .registerApp, .unregisterApp, .listApps, .describe:
            false
        }
    }
}

extension ItemAuthentication {
    /// Whether it carries a passcode or an application password, which the engine stretches before use.
    fileprivate var bringsSecret: Bool { passcode != nil || applicationPassword != nil }
}
