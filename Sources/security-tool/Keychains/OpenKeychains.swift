import Foundation
import Keychain
import KeychainCore
import KeychainWire
import Security

/// The keychains this process has opened, each opened once and kept open for the rest of the process, so one
/// `security -i` session keeps an embedded keychain's lock state from command to command (each process starts
/// with an embedded keychain locked; keychaind's keychain has one lock state for all of the user's processes).
///
/// Every keychain is used as its owner's administration tool: entitled to every access group (`*`, DESIGN §5),
/// adding to the first group of this executable's identity (`security` unless an entitlements file says
/// otherwise).
final class OpenKeychains {
    /// Kept in a list, not a dictionary: a command opens one or two, and a dictionary of them costs a short command
    /// the run-time's metadata and conformance lookups at first use.
    private var open: [(path: String, keychain: Keychain)] = []
    private var identity: ApplicationIdentity?
    private var descriptions: [DaemonTarget: DaemonDescription] = [:]

    /// The identity items are added and read with: this executable's, entitled to every group.
    func administrator() throws(ToolFailure) -> ApplicationIdentity {
        if let identity { return identity }
        do throws(KeychainError) {
            let own = try ApplicationIdentity.current()
            let administrator = try ApplicationIdentity(
                applicationIdentifier: own.applicationIdentifier, accessGroups: own.accessGroups + ["*"])
            identity = administrator
            return administrator
        } catch {
            throw .keychain(error, "SecKeychainOpen")
        }
    }

    /// The group an add without `--access-group` writes to, or `nil` through keychaind, where the caller the daemon
    /// sees decides (the user's unregistered programs' group, also for root's `--user`).
    func defaultAccessGroup(for location: KeychainLocation) throws(ToolFailure) -> String? {
        guard location.daemon == nil else { return nil }
        return try administrator().accessGroups.first ?? "security"
    }

    /// The keychain at `location`, opened once. A keychain other than the default one must exist: otherwise
    /// `errSecNoSuchKeychain` (exit status 50) with `context` before the message.
    func keychain(at location: KeychainLocation, context: String) throws(ToolFailure) -> Keychain {
        if let keychain = opened(location) { return keychain }
        // keychaind's keychain is not in a directory of this process: its embedded files are not looked for.
        guard location.daemon != nil || Keychain.exists(in: location.directory) || location.isDefault else {
            throw .keychain(
                KeychainError(status: errSecNoSuchKeychain, message: "no keychain in \(location.path)"), context)
        }
        return try opening(location, context: context)
    }

    /// The keychain at `location`, opened once, and created when it does not exist (keychaind creates its own).
    func opening(_ location: KeychainLocation, context: String) throws(ToolFailure) -> Keychain {
        if let keychain = opened(location) { return keychain }
        let keychain: Keychain
        if let daemon = location.daemon {
            keychain = Keychain(
                service: "", backend: daemon.client, identity: try daemonIdentity(daemon, context: context))
        } else {
            keychain = Keychain(service: "", directory: location.directory, identity: try administrator())
        }
        open.append((location.path, keychain))
        return keychain
    }

    private func opened(_ location: KeychainLocation) -> Keychain? {
        let path = location.path
        return open.first { $0.path == path }?.keychain
    }

    /// Who the daemon says is calling (`describe`), asked once per daemon keychain.
    func description(of daemon: DaemonTarget, context: String) throws(ToolFailure) -> DaemonDescription {
        if let description = descriptions[daemon] { return description }
        do throws(EngineError) {
            guard case .description(let description) = try daemon.client.send(.describe) else {
                throw EngineError(.internalComponent, "\(daemon.description) answered describe with something else")
            }
            descriptions[daemon] = description
            return description
        } catch {
            throw .keychain(KeychainError(status: error.status, message: error.message), context)
        }
    }

    /// The identity sent with each request to keychaind. The daemon ignores it for everyone but root, who may act as
    /// any caller: root then acts as the caller the daemon gives it (the user's unregistered programs' group first,
    /// entitled to every group: ``DaemonCallers/root``, what `describe` answers root, known without asking), so
    /// what root adds is seen by the user's own `security`.
    private func daemonIdentity(_ daemon: DaemonTarget, context: String) throws(ToolFailure) -> ApplicationIdentity {
        guard geteuid() == 0 else { return try administrator() }
        do throws(KeychainError) {
            return try ApplicationIdentity(
                applicationIdentifier: DaemonCallers.root.applicationIdentifier,
                accessGroups: DaemonCallers.root.accessGroups)
        } catch {
            throw .keychain(error, context)
        }
    }

    /// Creates the keychain at `location` and keeps it open; `errSecDuplicateKeychain` (exit status 48) with
    /// `context` before the message when one is there.
    func creating(_ location: KeychainLocation, context: String) throws(ToolFailure) -> Keychain {
        let identity = try administrator()
        do throws(KeychainError) {
            let keychain = try Keychain.create(service: "", in: location.directory, identity: identity)
            close(location)
            open.append((location.path, keychain))
            return keychain
        } catch {
            throw .keychain(error, context)
        }
    }

    /// The keychains opened so far.
    var all: [Keychain] { open.map(\.keychain) }

    /// Closes the keychain at `location` (before it is deleted).
    func close(_ location: KeychainLocation) {
        let path = location.path
        open.removeAll { $0.path == path }
    }

    /// Runs `body`; when it needs a protection class the lock withholds, asks for the passcode on the terminal,
    /// unlocks and runs it once more. Without a terminal, the error is `errSecInteractionNotAllowed` (exit status
    /// 36), saying how to unlock.
    func unlocking<Result>(
        _ keychain: Keychain, at location: KeychainLocation, _ body: () throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result {
        do throws(KeychainError) {
            return try body()
        } catch {
            guard error.status == errSecInteractionNotAllowed else { throw error }
            try unlockOnTerminal(keychain, at: location, after: error)
            return try body()
        }
    }

    /// Asks for the passcode on the terminal and unlocks, or throws why it cannot.
    private func unlockOnTerminal(
        _ keychain: Keychain, at location: KeychainLocation, after error: KeychainError
    ) throws(KeychainError) {
        let state = try keychain.keybagState()
        guard state.hasPasscode, state.isLocked else { throw error }
        if let retryAfter = state.retryAfter {
            throw KeychainError(
                status: errSecInteractionNotAllowed,
                message:
                    "the keychain \(location.path) is locked, and passcode entry is suspended until \(retryAfter) after \(state.failedAttempts) wrong passcodes"
            )
        }
        guard let terminal = TerminalDevice.open() else {
            throw KeychainError(
                status: errSecInteractionNotAllowed,
                message:
                    "the keychain \(location.path) is locked and there is no terminal to ask for its passcode; "
                    + (location.daemon == nil
                        ? "unlock it with unlock-keychain earlier in the same `security -i` session"
                        : "unlock it with `security unlock-keychain` (keychaind then keeps it unlocked for every process of the user)")
            )
        }
        let line = terminal.readSecret(prompt: "password to unlock \(location.name(or: "default")): ")
        guard case .line(var passcode) = line else {
            if case .tooLong(let count) = line {
                throw KeychainError(status: errSecParam, message: "the passcode typed is \(count) bytes, too long")
            }
            throw KeychainError(status: errSecUserCanceled, message: "no passcode was typed")
        }
        defer { SecretReader.zero(&passcode) }
        let typed: Keychain.Passcode
        do throws(EngineError) {
            typed = try Keychain.Passcode(copying: passcode)
        } catch {
            throw KeychainError(status: errSecAllocate, message: "cannot hold the passcode typed: \(error.message)")
        }
        guard typed.isValidUTF8 else {
            throw KeychainError(status: errSecParam, message: "the passcode typed is not valid UTF-8")
        }
        try keychain.unlock(passcode: typed)
    }
}
