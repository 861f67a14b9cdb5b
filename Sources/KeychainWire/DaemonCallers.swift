import KeychainCore

/// The callers keychaind itself gives, which its clients may rely on (they are part of the protocol).
package enum DaemonCallers {
    /// The one access group of every unregistered program a user runs (the `security` tool included).
    package static let unregisteredGroup = "swift-keychain.unregistered"

    /// The caller of a user's unregistered programs.
    package static let unregistered = Caller(applicationIdentifier: unregisteredGroup)

    /// Root's caller when its message names none: entitled to every group of the keychain it reaches, adding to the
    /// user's unregistered programs' group (so what root adds, the user's own `security` sees). `describe` answers
    /// it to root, so a root client can act as it without asking.
    package static let root = Caller.administrator(defaultGroup: unregisteredGroup)
}
