import Foundation
import Keychain
import KeychainClient
import KeychainCore
import KeychainWire
import Security

#if canImport(Glibc)
    import Glibc
#endif

extension Command {
    /// `register-app --entitlements FILE [--allow-insecure-exec] EXECUTABLE` (ours, root only): keychaind records
    /// the executable's path, device/inode and SHA-256 with its entitlements plist; a process running it (started
    /// with `AT_SECURE` unless `--allow-insecure-exec`) then gets that identity.
    static let registerApp = Command(
        name: "register-app",
        usage: """
            --entitlements file [--allow-insecure-exec] executable
                --entitlements file    The app's .entitlements plist (application-identifier, keychain-access-groups)
                --allow-insecure-exec  Give the identity also when the app was not started with AT_SECURE (not
                                       installed setgid): then LD_PRELOAD and same-user ptrace can act as the app
            Root only; sent to keychaind (KEYCHAIN_DAEMON, or the default socket).
            """,
        help: "Register an executable and its entitlements with keychaind.",
        options: OptionSpecification(
            "",
            long: [
                .init(name: "entitlements", takesValue: true), .init(name: "allow-insecure-exec", takesValue: false),
            ])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let executable = arguments.positionals.first else {
            throw .usage("name one executable")
        }
        guard let entitlementsPath = arguments.value(long: "entitlements") else {
            throw .usage("--entitlements names the app's entitlements plist")
        }
        let context = "register-app \(executable)"
        try AppRegistration.requireRoot(context)
        let path = try AppRegistration.canonicalPath(of: executable, context: context)
        let entitlements: Data
        do {
            entitlements = try Data(contentsOf: URL(fileURLWithPath: entitlementsPath))
        } catch {
            throw .failed(
                status: errSecParam, message: "\(context): cannot read the entitlements file \(entitlementsPath)")
        }
        let reply = try AppRegistration.send(
            .registerApp(
                path: path, entitlements: entitlements,
                allowsInsecureExecution: arguments.has(long: "allow-insecure-exec")), context: context)
        guard case .apps(let apps) = reply else { throw AppRegistration.unexpected(context) }
        for app in apps { AppRegistration.print(app, to: session.console) }
        return 0
    }

    /// `unregister-app EXECUTABLE` (ours, root only): keychaind forgets the registration; the app's items stay, and
    /// are the app's again when it is registered again with the same entitlements.
    static let unregisterApp = Command(
        name: "unregister-app",
        usage: """
            executable
            Root only; sent to keychaind (KEYCHAIN_DAEMON, or the default socket).
            """,
        help: "Remove an executable's registration from keychaind.", options: .positionalOnly
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let executable = arguments.positionals.first else {
            throw .usage("name one executable")
        }
        let context = "unregister-app \(executable)"
        try AppRegistration.requireRoot(context)
        // The file may be gone already: then its path as given, made absolute.
        let path =
            (try? AppRegistration.canonicalPath(of: executable, context: context))
            ?? URL(fileURLWithPath: executable).standardizedFileURL.path
        guard case .backend(.done) = try AppRegistration.send(.unregisterApp(path: path), context: context) else {
            throw AppRegistration.unexpected(context)
        }
        return 0
    }

    /// `list-apps [--json]` (ours): the apps registered with keychaind.
    static let listApps = Command(
        name: "list-apps",
        usage: """
            [--json]
                --json  Print the registrations as JSON
            """,
        help: "List the executables registered with keychaind.", options: OptionSpecification("", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.isEmpty else { throw .usage("list-apps takes no arguments") }
        guard case .apps(let apps) = try AppRegistration.send(.listApps, context: "list-apps") else {
            throw AppRegistration.unexpected("list-apps")
        }
        if arguments.has(long: "json") {
            session.console.print(JSONValue.array(apps.map(AppRegistration.json)).text)
        } else {
            for app in apps { AppRegistration.print(app, to: session.console) }
        }
        return 0
    }
}

/// What the registration verbs share: the daemon they talk to and how a registration is printed.
private enum AppRegistration {
    /// Refuses before asking the daemon (which refuses too) when the tool does not run as root.
    static func requireRoot(_ context: String) throws(ToolFailure) {
        guard geteuid() == 0 else {
            throw .failed(status: errSecMissingEntitlement, message: "\(context): only root may register apps")
        }
    }

    /// The executable's absolute path with symbolic links resolved, as `/proc/PID/exe` shows a running app.
    static func canonicalPath(of executable: String, context: String) throws(ToolFailure) -> String {
        guard let resolved = realpath(executable, nil) else {
            throw .failed(
                status: errSecParam,
                message: "\(context): cannot find the executable \(executable): \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// One request to keychaind (`KEYCHAIN_DAEMON`, or the default socket).
    static func send(_ request: DaemonRequest, context: String) throws(ToolFailure) -> DaemonReply {
        let socketPath = try DefaultKeychain.daemonSocket(for: "\(context): app registration")
        do throws(EngineError) {
            return try KeychainBackends.daemonClient(socketPath: socketPath, user: nil).send(request)
        } catch {
            throw .keychain(KeychainError(status: error.status, message: error.message), context)
        }
    }

    static func unexpected(_ context: String) -> ToolFailure {
        .failed(status: errSecInternalComponent, message: "\(context): keychaind answered with another kind of reply")
    }

    /// `path`, then its identity, digest and whether it needs `AT_SECURE`, one indented line each.
    static func print(_ app: RegisteredApp, to console: Console) {
        console.print(PrintBuffer.format(Array(app.path.utf8)))
        console.print("    application-identifier: \(app.applicationIdentifier)")
        console.print("    keychain-access-groups: \(app.accessGroups.joined(separator: ", "))")
        console.print("    sha256: \(app.sha256)")
        console.print(
            "    AT_SECURE: " + (app.allowsInsecureExecution ? "not required (--allow-insecure-exec)" : "required"))
    }

    static func json(_ app: RegisteredApp) -> JSONValue {
        .object([
            "path": .string(app.path), "sha256": .string(app.sha256),
            "applicationIdentifier": .string(app.applicationIdentifier),
            "accessGroups": .array(app.accessGroups.map(JSONValue.string)),
            "allowsInsecureExecution": .bool(app.allowsInsecureExecution),
        ])
    }
}
