import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Protections for a whole process that holds secrets (the `security` tool, a daemon, a long-running worker):
/// what the kernel would otherwise write to disk or show other processes of the same user.
public enum ProcessHardening {
    /// Stops the process from ever leaving a core dump: the core size limit becomes 0 (soft and hard, so no child
    /// or later call can raise it) and the process becomes non-dumpable, which also keeps other processes of the same
    /// user from tracing it or reading its memory through `/proc`.
    ///
    /// Call it first thing in `main`, before any secret is read. Both settings are always attempted; the error
    /// names the one that failed.
    public static func disableCoreDumps() throws(EngineError) {
        guard ck_disable_core_dumps() == 0 else {
            let reason = String(cString: strerror(errno))
            throw EngineError(.internalComponent, "cannot disable core dumps of this process: \(reason)")
        }
    }

    /// Whether the process may leave a core dump (is dumpable, in the kernel's words).
    public static var isDumpable: Bool { ck_is_dumpable() != 0 }
}
