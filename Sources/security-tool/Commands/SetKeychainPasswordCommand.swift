import Keychain

extension Command {
    /// `set-keychain-password [-o oldPassword] [-p newPassword] [keychain]`: sets, changes or (with an empty new
    /// password) removes a keychain's passcode. Only the keys of the protection classes are rewrapped.
    static let setKeychainPassword = Command(
        name: "set-keychain-password",
        usage: """
            [-o oldPassword] [-p newPassword] [keychain]
                -o  Old keychain password (if not provided, will prompt; not asked when the keychain has none)
                -p  New keychain password (if not provided, will prompt; empty removes the password)
            Use of either the -o or -p options is insecure.
            """,
        help: "Set password for a keychain.", options: OptionSpecification("o:p:", secrets: "op")
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "error changing password for \"\(location.name(or: "<NULL>"))\""
        let keychain = try session.keychains.keychain(at: location, context: context)
        let hasPasscode: Bool
        do throws(KeychainError) {
            hasPasscode = try keychain.keybagState().hasPasscode
        } catch {
            throw .keychain(error, context)
        }
        var old: [UInt8] = []
        if hasPasscode {
            old = try session.secrets.given(arguments.value("o")) { secrets throws(ToolFailure) in
                try secrets.secret(prompt: "Old Password: ")
            }
        }
        defer { SecretReader.zero(&old) }
        var new = try session.secrets.given(arguments.value("p")) { secrets throws(ToolFailure) in
            try secrets.newSecret(prompt: "New Password: ", retypePrompt: "Retype New Password: ")
        }
        defer { SecretReader.zero(&new) }
        let oldPasscode = try SecretReader.passcode(of: old, "old password")
        let newPasscode = try SecretReader.passcode(of: new, "new password")
        do throws(KeychainError) {
            switch (hasPasscode, new.isEmpty) {
            case (false, true): break  // no passcode, and none wanted
            case (false, false): try keychain.setPasscode(newPasscode)
            case (true, true): try keychain.removePasscode(oldPasscode)
            case (true, false): try keychain.changePasscode(from: oldPasscode, to: newPasscode)
            }
        } catch {
            throw .keychain(error, context)
        }
        return 0
    }
}
