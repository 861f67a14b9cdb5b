import Foundation
import KeychainCore

/// The backup calls, async: run on the keychain's queue while the task waits; `progress` is called there.
extension Keychain {
    /// Writes an encrypted archive of the migratable items to `url`, as the blocking call of the same name does.
    @discardableResult
    public func backup(
        to url: URL, passphrase: Passcode, cost: PasscodeCost = .standard,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(KeychainError) -> BackupSummary {
        try await offload { keychain throws(KeychainError) in
            try keychain.backup(to: url, passphrase: passphrase, cost: cost, progress: progress)
        }
    }

    /// Restores the archive at `url`, all or nothing, as the blocking call of the same name does.
    @discardableResult
    public func restore(
        from url: URL, passphrase: Passcode, onConflict policy: RestoreConflictPolicy? = nil,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(KeychainError) -> RestoreSummary {
        try await offload { keychain throws(KeychainError) in
            guard let input = FileHandle(forReadingAtPath: url.path) else {
                throw KeychainError(status: -36, message: "cannot read \(url.path)")
            }
            return try keychain.restore(from: input, passphrase: passphrase, onConflict: policy, progress: progress)
        }
    }

    /// Checks an archive whole without restoring it, off the caller's executor (Argon2id takes a while).
    public static func verifyBackup(at url: URL, passphrase: Passcode) async throws(KeychainError) -> BackupContents {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<BackupContents, KeychainError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(KeychainError) -> BackupContents in
                        guard let input = FileHandle(forReadingAtPath: url.path) else {
                            throw KeychainError(status: -36, message: "cannot read \(url.path)")
                        }
                        return try verifyBackup(from: input, passphrase: passphrase)
                    })
            }
        }
        return try result.get()
    }
}
