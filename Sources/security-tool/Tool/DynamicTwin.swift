import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// The release `security` is linked statically, so that a command starts in about half the time; a static program
/// cannot load libpq (see CLibPQ), which the PostgreSQL sync store needs, nor glibc's NSS modules (a `--user` name
/// that is not in /etc/passwd). So the static tool hands its sync verbs, and such a name, to its twin, `security-libpq`: the same tool linked dynamically, installed beside it (`make install` puts it in
/// `libexec/swift-keychain`). The hand-off is an `exec` before the verb does anything, with the same arguments,
/// environment, terminal and standard streams, so nothing about the verb changes but the binary that runs it.
enum DynamicTwin {
    /// The twin's file name.
    static let name = "security-libpq"

    /// Replaces this process by the twin when it is static and `verb` is a sync verb; returns when it is not, or
    /// when no twin is installed (then the verb runs here: a folder store works, and a PostgreSQL store says it
    /// cannot load libpq, naming the twin).
    static func handOff(verb: String) {
        guard handsOff(verb) else { return }
        handOff()
    }

    /// Replaces this process by the twin, with the same arguments, when it is static and the twin is installed;
    /// returns otherwise. For what a static program cannot do at all (libpq; a user name only NSS modules know).
    static func handOff() {
        guard StaticLinking.isStatic,
            let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            let twin = twin(of: me)
        else { return }
        execv(twin, CommandLine.unsafeArgv)
        // exec failed (the twin vanished, or is not executable): go on in this process.
    }

    /// Whether `verb` (as typed: the tool takes any unambiguous prefix) is a sync verb, which may open a store.
    static func handsOff(_ verb: String) -> Bool {
        Command.named(verb)?.name.hasPrefix("sync") ?? false
    }

    /// The twin of the tool at `executable`: beside it, or in `../libexec/swift-keychain/` from it; `nil` when
    /// neither is an executable file.
    static func twin(of executable: String) -> String? {
        let directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let candidates = [
            directory.appendingPathComponent(name),
            directory.deletingLastPathComponent().appendingPathComponent("libexec/swift-keychain/\(name)"),
        ]
        return candidates.map(\.path).first { access($0, X_OK) == 0 }
    }
}
