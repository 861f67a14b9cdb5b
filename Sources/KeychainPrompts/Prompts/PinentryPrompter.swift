import Foundation
import KeychainCore

/// Asks through pinentry, the program GnuPG uses for passphrases (a dialog on the desktop, or curses on a
/// terminal), speaking its Assuan protocol over its standard input and output.
///
/// The program is `PINENTRY_PROGRAM` from the environment (a path, or a name looked up on `PATH`), else
/// `pinentry` on `PATH`; without one the prompt is ``SecretPromptOutcome/unavailable(_:)``. The child gets the
/// environment (so it finds `DISPLAY`, `WAYLAND_DISPLAY`, `GPG_TTY`), every signal at its default, and no shell
/// between. It is reaped on every path, and killed when the whole conversation takes longer than the timeout.
/// The PIN is percent-decoded from the `D` lines straight into guarded memory.
///
/// In a process started with `AT_SECURE` (``ProcessEnvironment/isSecureExecution``: a setgid registered app), whose
/// environment is its caller's choice, the program is ``systemProgram`` only, and it gets a clean environment
/// (``secureEnvironment()``). In every process it runs with this process's real user and group
/// (`POSIX_SPAWN_RESETIDS`): a setgid app's group is what lends the app its identity, and pinentry must not hold it.
package struct PinentryPrompter: SecretPrompter {
    /// How long a user has to answer when the caller does not say.
    package static let defaultTimeout = Duration.seconds(300)
    /// How long pinentry has to exit after `BYE` before it is killed.
    private static let exitGrace = Duration.seconds(2)

    /// The one pinentry a process started with `AT_SECURE` runs (Debian's alternatives link, `pinentry-curses` or
    /// a desktop's).
    package static let systemProgram = "/usr/bin/pinentry"
    /// The variables a process started with `AT_SECURE` passes on to pinentry: those that say where the user's
    /// display, terminal and locale are, nothing that changes what runs or what it loads.
    static let secureVariables = [
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "GPG_TTY", "TERM",
        "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
    ]

    private let givenEnvironment: [String: String]?
    private let timeout: Duration

    /// A prompter that finds pinentry through `environment` (`nil`: the process's, read when it asks: copying it is
    /// a cost a command that never prompts should not pay) and gives up (killing it) after `timeout`.
    package init(environment: [String: String]? = nil, timeout: Duration = defaultTimeout) {
        givenEnvironment = environment
        self.timeout = timeout
    }

    private var environment: [String: String] {
        if let givenEnvironment { return givenEnvironment }
        return ProcessEnvironment.isSecureExecution ? Self.secureEnvironment() : ProcessInfo.processInfo.environment
    }

    /// The environment pinentry gets in a process started with `AT_SECURE`: `PATH=/usr/bin:/bin` and only the
    /// ``secureVariables`` that are set. No loader variable, no `HOME`, no `PINENTRY_PROGRAM`, no `KEYCHAIN_…`.
    static func secureEnvironment() -> [String: String] {
        var environment = ["PATH": "/usr/bin:/bin"]
        for name in secureVariables {
            // Plain getenv: these only locate the user's display for a pinentry that runs as the user.
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// The pinentry program that would run: its path, or why there is none.
    func program() -> Result<String, PromptFailure> {
        if givenEnvironment == nil, ProcessEnvironment.isSecureExecution {
            guard ExecutableLookup.find(Self.systemProgram, path: nil) != nil else {
                return .failure(.init("no pinentry program (\(Self.systemProgram) is not installed)"))
            }
            return .success(Self.systemProgram)
        }
        let environment = self.environment
        if let named = environment["PINENTRY_PROGRAM"], !named.isEmpty {
            guard let path = ExecutableLookup.find(named, path: environment["PATH"]) else {
                return .failure(.init("PINENTRY_PROGRAM is \"\(named)\", which is not an executable program"))
            }
            return .success(path)
        }
        guard let path = ExecutableLookup.find("pinentry", path: environment["PATH"]) else {
            return .failure(.init("no pinentry program (PINENTRY_PROGRAM is not set and PATH has no pinentry)"))
        }
        return .success(path)
    }

    /// Asks through pinentry; see the type's description.
    package func ask(_ request: SecretPromptRequest) -> SecretPromptOutcome {
        let environment = self.environment
        let path: String
        switch program() {
        case .success(let found): path = found
        case .failure(let failure): return .unavailable(failure.reason)
        }
        let child: PinentryProcess
        switch PinentryProcess.start(path: path, environment: environment) {
        case .success(let started): child = started
        case .failure(let failure): return .unavailable(failure.reason)
        }
        let secret: SecretAccumulator
        let channel: AssuanChannel
        do {
            secret = try SecretAccumulator()
            channel = try AssuanChannel(descriptor: child.descriptor, deadline: .now + timeout)
        } catch {
            child.finish(grace: .zero)
            return .unavailable("cannot hold the secret: \(error.message)")
        }
        let outcome: SecretPromptOutcome
        do throws(AssuanChannel.Failure) {
            outcome = try PinentryConversation(channel: channel, environment: environment)
                .getPIN(request, into: secret, program: path)
            // A pinentry that does not answer BYE is still reaped below.
            try? channel.send("BYE")
            child.finish(grace: Self.exitGrace)
        } catch {
            secret.removeAll()
            child.finish(grace: .zero)
            switch error {
            case .timedOut:
                return .unavailable("pinentry (\(path)) did not answer within \(timeout); it was stopped")
            case .broken(let reason):
                return .unavailable("pinentry (\(path)) failed: \(reason)")
            }
        }
        return outcome
    }
}
