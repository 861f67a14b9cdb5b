import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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
            if kept.isEmpty { atexit { TPMContext.closeShared() } }
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

    /// Flushes the primary key of every kept connection, at exit: a software TPM without a resource manager keeps
    /// it otherwise, and has room for three. (A TPM whose connection is gone must not kill the exiting process with
    /// SIGPIPE.)
    public static func closeShared() {
        signal(SIGPIPE, SIG_IGN)
        for context in kept.withLock({ Array($0.values) }) { context.close() }
    }
}
