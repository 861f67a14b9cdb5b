import Foundation
import KeychainCore
import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// An app running in a Flatpak sandbox: a process whose root directory holds `/.flatpak-info`, as bubblewrap sets up
/// every Flatpak app's (xdg-desktop-portal tells apps apart the same way). It is a principal of its own, with one
/// access group no other caller reaches, never the user's shared group: a sandboxed app is kept from the user's
/// secrets, as it is kept from the user's files.
///
/// The other way holds less, and says so: a program outside any sandbox can fake one (a user namespace and a root
/// holding its own `/.flatpak-info`), and so reach a sandboxed app's group — as it can already read that app's files.
struct SandboxedApp: Equatable {
    /// The app's id (`org.example.App`), or `nil` when its sandbox does not name one it may have.
    var applicationID: String?

    /// The caller: `swift-keychain.flatpak.APP`, both its identifier and its one group; a sandbox that names no
    /// valid app id gets `swift-keychain.flatpak.unidentified` (still never the user's shared group).
    var caller: Caller {
        let name = "swift-keychain.flatpak." + (applicationID ?? "unidentified")
        return Caller(applicationIdentifier: name, accessGroups: [name])
    }

    /// The sandbox `pid` runs in, or `nil` when it runs in none (or `/proc` hides its root: then it is taken for
    /// what it would be without one, as before sandboxes were told apart).
    ///
    /// A root holding a `/.flatpak-info` this daemon may not read is still a sandbox, one that names no app: Flatpak's
    /// file is bubblewrap's `--ro-bind-data`, created mode 0600 and the user's, which keychaind's own user cannot
    /// open — taking it for no sandbox would give every Flatpak app the user's shared group.
    static func of(pid: Int32, procRoot: String = "/proc") -> SandboxedApp? {
        // Whether this daemon may look into the process's root at all (it may not into a process it cannot trace).
        var root = stat()
        guard stat("\(procRoot)/\(pid)/root/", &root) == 0 else { return nil }
        let path = "\(procRoot)/\(pid)/root/.flatpak-info"
        // The file itself, not a link the sandbox's maker planted; a short read: the file is a few hundred bytes.
        let opened: FileDescriptor<EngineError>?
        do {
            opened = try FileDescriptor<EngineError>.openIfExists(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            return SandboxedApp(applicationID: nil)
        }
        guard let file = opened else { return nil }
        guard let bytes = try? file.readBytes(count: 16 * 1024) else { return SandboxedApp(applicationID: nil) }
        return SandboxedApp(applicationID: applicationID(in: String(decoding: bytes, as: UTF8.self)))
    }

    /// The `name` of the `[Application]` group of a `.flatpak-info` key file, when it is a valid app id.
    static func applicationID(in keyFile: String) -> String? {
        var group = ""
        for rawLine in keyFile.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
            } else if group == "Application", let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if key == "name" { return isValidApplicationID(value) ? value : nil }
            }
        }
        return nil
    }

    /// Flatpak's rule for an app id: at most 255 bytes, at least three elements separated by dots, each of ASCII
    /// letters, digits, `_` and `-`, not starting with a digit, none empty.
    static func isValidApplicationID(_ id: String) -> Bool {
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard id.utf8.count <= 255, elements.count >= 3 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.first, !first.isNumber else { return false }
            return element.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
        }
    }
}
