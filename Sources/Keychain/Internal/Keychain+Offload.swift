import Dispatch

extension Keychain {
    /// Runs blocking keychain work on the keychain's queue (see ``Connection/queue`` for why) while the calling task
    /// is suspended, and returns its result on the caller's executor.
    ///
    /// The work always runs to completion once started, even if the task is cancelled: a write must not stop
    /// halfway, and the engine's calls are short, bar unlocking.
    func offload<Output: Sendable>(
        _ work: @escaping @Sendable (Keychain) throws(KeychainError) -> Output
    ) async throws(KeychainError) -> Output {
        let keychain = self
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Output, KeychainError>, Never>) in
            connection.queue.async {
                continuation.resume(returning: Result { () throws(KeychainError) -> Output in try work(keychain) })
            }
        }
        return try result.get()
    }
}
