import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9, item 11: the tool holds secrets, so it never leaves a core dump.
@Suite("Reliability 11: the security tool cannot dump core")
struct ProcessHardeningTests {
    @Test("Reliability 11: security is not dumpable and its core limit is 0 while it waits at a prompt")
    func noCoreDumps() throws {
        let home = try TestHome()
        // Started with the largest core limit this process may give, so a tool that keeps what it inherits shows it.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        let hard = limit.rlim_max == rlim_t.max ? "unlimited" : "\(limit.rlim_max)"
        var arguments = ["--core=\(hard):\(hard)"]
        // /proc/<pid> belongs to root once a process is not dumpable: as root, run the tool as another user, so
        // that the owner tells the two apart.
        let isRoot = geteuid() == 0
        let user: uid_t = isRoot ? 65534 : geteuid()
        if isRoot {
            try #require(
                FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "util-linux's setpriv is missing")
            arguments += ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]
        }
        let session = try PipeSession(
            "/usr/bin/prlimit", arguments + [SecurityProcess.executable, "-i"], process: home.tool)
        session.send("error 0")
        try session.waitForOutput(endingWith: "No error.\n")

        #expect(try ProcessInspection.effectiveUID(session.pid) == user)
        #expect(try ProcessInspection.procOwner(session.pid) == 0, "the process is dumpable")
        let core = try ProcessInspection.lines(session.pid, "limits").first { $0.hasPrefix("Max core file size") }
        let values = core?.dropFirst("Max core file size".count).split(whereSeparator: \.isWhitespace) ?? []
        #expect(values.prefix(2) == ["0", "0"], "\(core ?? "no core limit line")")
        #expect(try session.finish().status == 1)
    }

    @Test(
        "The programs that hold secrets bind every symbol at start and keep what the dynamic linker filled in read-only (full RELRO)",
        arguments: ["keychaind", "keychain-secret-service", "security"])
    func bindsEverySymbolAtStart(_ name: String) throws {
        // Lazily bound, a function's first call is resolved on the thread making it, and the resolver saves every
        // vector register on that thread's stack: whatever a primitive left in them (Argon2id's output was found
        // there, issue 23). Bound at start, the resolver never runs later, and the table it fills cannot be
        // written after.
        let hardening = try ELFHardening(executable: BuiltExecutable.named(name))
        #expect(
            hardening.isDynamic && hardening.bindsNow && hardening.hasRelocationReadOnly, "\(name) is \(hardening)")
    }
}
