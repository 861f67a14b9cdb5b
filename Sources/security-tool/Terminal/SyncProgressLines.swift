import KeychainSync

/// The progress of `security sync` on the terminal (never in a pipe: ``ProgressLine/onTerminal(_:unit:json:)``): one
/// line while the store's new records are fetched and checked, then one while items are applied, each erased when
/// its part ends. Only an embedded keychain's pass reports progress; keychaind answers once, when it is done.
final class SyncProgressLines {
    private var line: ProgressLine?
    private var phase: SyncProgress.Phase?

    /// What the pass calls.
    var progress: (SyncProgress) -> Void {
        { [self] progress in update(progress) }
    }

    private func update(_ progress: SyncProgress) {
        if progress.phase != phase {
            line?.finish()
            phase = progress.phase
            line =
                progress.phase == .receiving
                ? ProgressLine.onTerminal("received", unit: .records) : ProgressLine.onTerminal("applied", unit: .items)
        }
        line?.update(Int64(progress.done), of: Int64(progress.total))
    }

    /// Erases the line left.
    func finish() {
        line?.finish()
        line = nil
    }
}
