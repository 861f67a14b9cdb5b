import Keychain
import Security

extension Command {
    /// `delete-keychain keychains...`: deletes keychains: their device key first, then their database; files that
    /// are not the keychain's stay. A directory that holds no keychain is refused (`errSecNoSuchKeychain`), and so is
    /// keychaind's default keychain (`errSecWrPerm`: the daemon owns it), before anything is deleted.
    static let deleteKeychain = Command(
        name: "delete-keychain", usage: "[keychains...]",
        help: "Delete keychains (name the default one \"login\").", options: OptionSpecification("")
    ) { arguments, session throws(ToolFailure) in
        guard !arguments.positionals.isEmpty else {
            throw .usage("name the keychains to delete (the default keychain is \"login\")")
        }
        let locations = try KeychainLocation.all(arguments.positionals)
        if let daemon = locations.lazy.compactMap(\.daemon).first {
            throw .failed(
                status: errSecWrPerm,
                message:
                    "SecKeychainDelete: the default keychain is kept by \(daemon.description), which owns it: it cannot be deleted through the daemon (set KEYCHAIN_DAEMON=off to delete the embedded one)"
            )
        }
        for location in locations {
            session.keychains.close(location)
            do throws(KeychainError) {
                try Keychain.delete(in: location.directory)
            } catch {
                throw .keychain(error, "SecKeychainDelete")
            }
        }
        return 0
    }
}
