import Keychain
import KeychainCore

extension Command {
    /// `show-keychain-info [keychain]`: macOS's settings line on standard error (`Keychain "<name>" no-timeout`:
    /// the embedded keychain has no auto-lock timer), then which backend answered — the keychain's directory, or
    /// `keychaind at SOCKET` and the identity the daemon sees — and the lock state on standard output, or as JSON
    /// with `--json`.
    static let showKeychainInfo = Command(
        name: "show-keychain-info",
        usage: """
            [keychain]
                --json  Print the keychain's backend and lock state as JSON
            """,
        help: "Show the settings for keychain.", options: OptionSpecification("", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "SecKeychainCopySettings \(location.name(or: "<NULL>"))"
        let keychain = try session.keychains.keychain(at: location, context: context)
        let state: KeybagState
        do throws(KeychainError) {
            state = try keychain.keybagState()
        } catch {
            throw .keychain(error, context)
        }
        let described = try location.daemon.map { daemon throws(ToolFailure) in
            try session.keychains.description(of: daemon, context: context)
        }
        session.console.printError("Keychain \"\(location.name(or: "<NULL>"))\" no-timeout")
        // Where the device key is kept, for an embedded keychain (keychaind's files are not this process's to read).
        let deviceKey = location.daemon == nil ? try? DeviceKeyStorage.current(in: location.directory) : nil
        if arguments.has(long: "json") {
            var members: [String: JSONValue] = [
                "keychain": .string(location.path), "hasPasscode": .bool(state.hasPasscode),
                "isLocked": .bool(state.isLocked), "failedAttempts": .number(Int64(state.failedAttempts)),
                "backend": .string(location.daemon == nil ? "embedded" : "keychaind"),
            ]
            members["retryAfter"] = state.retryAfter.map(JSONValue.date)
            members["deviceKey"] = deviceKey.map { .string($0 == .tpm ? "tpm" : "file") }
            if let daemon = location.daemon, let described {
                members["socket"] = .string(daemon.socketPath)
                members["uid"] = .number(Int64(described.uid))
                members["applicationIdentifier"] = .string(described.applicationIdentifier)
                members["accessGroups"] = .array(described.accessGroups.map(JSONValue.string))
                members["registeredApp"] = .bool(described.isRegisteredApp)
            }
            session.console.print(JSONValue.object(members).text)
            return 0
        }
        session.console.print("keychain: " + PrintBuffer.format(Array(location.path.utf8)))
        if let described {
            session.console.print("user: uid \(described.uid)")
            session.console.print(
                "caller: \(described.applicationIdentifier) (groups: \(described.accessGroups.joined(separator: ", ")))"
                    + (described.isRegisteredApp ? ", a registered app" : ""))
        }
        switch deviceKey {
        case .tpm?:
            session.console.print(
                "device key: sealed by the TPM (\(DeviceKeyStorage.configuredTPM ?? "no TPM is configured here"))")
        case .file?:
            session.console.print("device key: file (a copy of the directory holds everything an offline attack needs)")
        case nil: break
        }
        session.console.print("passcode: " + (state.hasPasscode ? "set" : "none"))
        let scope = described.map { "for every process of uid \($0.uid)" } ?? "in this process"
        session.console.print("lock state: " + (state.isLocked ? "locked" : "unlocked") + " (\(scope))")
        if state.failedAttempts > 0 { session.console.print("wrong passcodes in a row: \(state.failedAttempts)") }
        if let retryAfter = state.retryAfter {
            session.console.print("next passcode attempt: " + UTCTime(date: retryAfter).iso8601)
        }
        return 0
    }
}
