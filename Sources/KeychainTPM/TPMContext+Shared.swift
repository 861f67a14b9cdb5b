import Synchronization

extension TPMContext {
    /// The process's kept connections, by TCTI.
    private static let kept = Mutex<[String: TPMContext]>([:])

    /// The process's one connection to the TPM at `tcti`, opened on first use (under the lock) and kept: everything
    /// in a process that uses one TPM shares it. A software TPM serves one connection at a time, so a second one
    /// would wait on the first for good; and a connection makes the storage primary key, too slow to do per use.
    public static func shared(tcti: String) throws(TPMError) -> TPMContext {
        try kept.withLock { (kept) throws(TPMError) -> TPMContext in
            if let context = kept[tcti] { return context }
            let context = try TPMContext.open(tcti: tcti)
            kept[tcti] = context
            return context
        }
    }

    /// Drops `context` if it is still the kept connection to its TPM (it failed: the TPM restarted, the socket
    /// closed), so that the next ``shared(tcti:)`` opens a new one.
    public static func forget(_ context: TPMContext) {
        kept.withLock { kept in
            if kept[context.tcti] === context { kept[context.tcti] = nil }
        }
    }
}
