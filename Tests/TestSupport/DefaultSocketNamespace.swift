import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program where keychaind's default socket (`/run/swift-keychain/keychaind.sock`, a constant of the
/// library) is a test's own: in a mount namespace of its own (`unshare --mount`, root only), `/run` is an empty
/// tmpfs and `/run/swift-keychain` the directory the test names (a ``DaemonProcess``'s, whose socket is
/// `keychaind.sock`), and optionally `/usr/bin/pinentry` a program of the test's.
///
/// This is how the tests point "the default socket" elsewhere without a hook in the library: nothing a process
/// reads (environment, files beside the executable, arguments) moves it, so a setgid app started by an attacker
/// talks to the system's daemon only. Changing what a path means to another process takes a mount namespace, which
/// an ordinary user can make only inside a user namespace of their own, where a setgid bit to a group outside it
/// is not honoured (the app would run without its group, so without its identity).
public enum DefaultSocketNamespace {
    /// The default socket's directory, as the library names it.
    public static let socketDirectory = "/run/swift-keychain"
    /// The fixed pinentry path the library runs for a process started with `AT_SECURE`.
    public static let systemPinentry = "/usr/bin/pinentry"

    /// Whether this process may make mount namespaces (root, with `unshare` and `mount`, in a kernel and
    /// container that allow them): checked once by doing it.
    public static let isAvailable: Bool = {
        guard getuid() == 0, let unshare = tool("unshare"), let mount = tool("mount") else { return false }
        let status = run([unshare, "--mount", "--propagation", "private", mount, "-t", "tmpfs", "probe", "/run"])
        return status == 0
    }()

    /// Whether `/usr/bin/pinentry` exists, so a test's pinentry can be mounted over it (Debian's `pinentry-curses`,
    /// which `scripts/bootstrap` installs, provides it).
    public static var hasSystemPinentry: Bool { FileManager.default.fileExists(atPath: systemPinentry) }

    /// The command line that runs `command` (an absolute path first) with `/run/swift-keychain` being
    /// `socketDirectory` and, when given, `/usr/bin/pinentry` being `pinentry`, in `workingDirectory` when given.
    /// The namespace's own commands run as root before `command`; use a user switch (`setpriv`) inside `command` to
    /// run it as another user.
    public static func command(
        socketDirectory: String, pinentry: String? = nil, workingDirectory: String? = nil, _ command: [String]
    ) -> [String] {
        let unshare = tool("unshare") ?? "/usr/bin/unshare"
        let mount = tool("mount") ?? "/usr/bin/mount"
        let mkdir = tool("mkdir") ?? "/usr/bin/mkdir"
        // Absolute paths throughout: the environment given to the command (a hostile PATH) is the script's too.
        var script =
            "\(mount) -t tmpfs -o mode=0755 keychain-tests /run && \(mkdir) \(Self.socketDirectory) "
            + "&& \(mount) --bind \"$1\" \(Self.socketDirectory)"
        if pinentry != nil { script += " && \(mount) --bind \"$2\" \(systemPinentry)" }
        if workingDirectory != nil { script += " && cd \"$3\"" }
        script += " && shift 3 && exec \"$@\""
        return [unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", socketDirectory]
            + [pinentry ?? "-", workingDirectory ?? "-"] + command
    }

    /// An executable named `name` in the system directories.
    public static func tool(_ name: String) -> String? {
        ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `arguments` with no input and no output; its exit status, or -1.
    private static func run(_ arguments: [String]) -> Int32 {
        guard
            let pid = try? Spawn.start(
                arguments[0], Array(arguments.dropFirst()), environment: [:],
                descriptors: [-1, -1, -1], controllingTerminal: nil),
            let status = try? Spawn.waitStatus(pid)
        else { return -1 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }
}
