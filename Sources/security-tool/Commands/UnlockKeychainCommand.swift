import Keychain

extension Command {
    /// `unlock-keychain [-u] [-p password] [keychain]`: checks the passcode and unlocks the keychain: keychaind's for
    /// every process of the user; an embedded one for the rest of this process only (each process starts with it
    /// locked: unlock in a `security -i` session, before the commands that need it).
    static let unlockKeychain = Command(
        name: "unlock-keychain",
        usage: """
            [-u] [-p password] [keychain]
                -p  Use "password" as the password to unlock the keychain
                -u  Do not use the password (ask for it: on the terminal, or from standard input)
            Use of the -p option is insecure.
            """,
        help: "Unlock the specified keychain.", options: OptionSpecification("up:", secrets: "p")
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "SecKeychainUnlock \(location.name(or: "<NULL>"))"
        let keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            guard try keychain.keybagState().hasPasscode else { return 0 }  // nothing to unlock
        } catch {
            throw .keychain(error, context)
        }
        var passcode = try session.secrets.given(arguments.value("p")) { secrets throws(ToolFailure) in
            try secrets.secret(prompt: "password to unlock \(location.name(or: "default")): ")
        }
        defer { SecretReader.zero(&passcode) }
        let typed = try SecretReader.passcode(of: passcode, "password to unlock the keychain")
        do throws(KeychainError) {
            try keychain.unlock(passcode: typed)
        } catch {
            throw .keychain(error, context)
        }
        return 0
    }
}
