import Keychain

extension Command {
    /// `show-keychain-info [keychain]`: macOS's settings line on standard error (`Keychain "<name>" no-timeout`:
    /// swift-keychain has no auto-lock timer yet), then the keychain's directory and lock state on standard output,
    /// or as JSON with `--json`.
    static let showKeychainInfo = Command(
        name: "show-keychain-info",
        usage: """
            [keychain]
                --json  Print the keychain's path and lock state as JSON
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
        session.console.printError("Keychain \"\(location.name(or: "<NULL>"))\" no-timeout")
        if arguments.has(long: "json") {
            var members: [String: JSONValue] = [
                "keychain": .string(location.path), "hasPasscode": .bool(state.hasPasscode),
                "isLocked": .bool(state.isLocked), "failedAttempts": .number(Int64(state.failedAttempts)),
            ]
            members["retryAfter"] = state.retryAfter.map(JSONValue.date)
            session.console.print(JSONValue.object(members).text)
            return 0
        }
        session.console.print("keychain: " + PrintBuffer.format(Array(location.path.utf8)))
        session.console.print("passcode: " + (state.hasPasscode ? "set" : "none"))
        session.console.print("lock state: " + (state.isLocked ? "locked" : "unlocked") + " (in this process)")
        if state.failedAttempts > 0 { session.console.print("wrong passcodes in a row: \(state.failedAttempts)") }
        if let retryAfter = state.retryAfter {
            session.console.print("next passcode attempt: " + UTCTime(date: retryAfter).iso8601)
        }
        return 0
    }
}
