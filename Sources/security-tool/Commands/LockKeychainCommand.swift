import Keychain

extension Command {
    /// `lock-keychain [-a | keychain]`: locks a keychain, or with `-a` every keychain this process opened. An
    /// embedded keychain starts locked in each process, so this matters within a `security -i` session; keychaind's
    /// keychain is locked for every process of the user.
    static let lockKeychain = Command(
        name: "lock-keychain",
        usage: """
            [-a | keychain]
                -a  Lock all keychains
            """,
        help: "Lock the specified keychain.", options: OptionSpecification("a")
    ) { arguments, session throws(ToolFailure) in
        if arguments.has("a") {
            guard arguments.positionals.isEmpty else { throw .usage("-a locks every keychain: name none") }
            for keychain in session.keychains.all {
                do throws(KeychainError) {
                    try keychain.lock()
                } catch {
                    throw .keychain(error, "SecKeychainLockAll")
                }
            }
            return 0
        }
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "SecKeychainLock \(location.name(or: "<NULL>"))"
        let keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            try keychain.lock()
        } catch {
            throw .keychain(error, context)
        }
        return 0
    }
}
