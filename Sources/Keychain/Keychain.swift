import Foundation
import KeychainClient
import KeychainCore
import KeychainPrompts

/// Apple's access-control flags (`SecAccessControlCreateFlags`), for ``Keychain/accessControl(_:)``.
public typealias AccessControlFlags = AccessConstraint.Flags

/// A keychain, configured for the items it writes: the Swift-native API of swift-keychain.
///
/// ```swift
/// let keychain = Keychain(service: "com.example.api").accessibility(.afterFirstUnlock)
/// try keychain.set("s3cret", for: "alice")
/// let password = try keychain.get("alice")   // nil only when there is no such item
/// ```
///
/// A `Keychain` is a small `Sendable` value: configure it with the modifiers (``service(_:)``,
/// ``accessGroup(_:)``, ``accessibility(_:)``, ``synchronizable(_:)``, ``label(_:)``), each returning a configured
/// copy, and share it freely. Any number of tasks and threads may use one at once without a lock of their own;
/// the `async` variants do the blocking work off the caller's executor.
///
/// Every value on the same directory in a process shares one engine: one lock state, and one stream of
/// ``changes()``. The files are opened on first use, so creating a value never fails; an error opening them is
/// thrown by the first operation (and the next one tries again).
///
/// The key-value API (`set(_:for:)`, `get(_:)`, `remove(_:)`, …) stores generic passwords whose account is
/// the key and whose service is ``service``. Typed items (``GenericPassword``, ``InternetPassword``) say all
/// their attributes themselves; the configuration does not apply to them.
public struct Keychain: Sendable {
    /// The service of the key-value API's items (`svce`).
    public private(set) var service: String
    /// The access group the key-value API writes to and reads from; `nil`: writes go to the identity's first
    /// group and reads see every group it is entitled to.
    public private(set) var accessGroup: String?
    /// The accessibility the key-value API writes items with; `set(_:for:)` also moves an existing item to it.
    public private(set) var accessibility: Accessibility = .whenUnlocked
    /// Whether the key-value API works on synchronizable items (`true`) or on local ones (`false`, the default).
    /// The two are separate: a key can exist once of each kind.
    public private(set) var isSynchronizable = false
    /// The label the key-value API writes items with; `nil` leaves labels alone.
    public private(set) var label: String?
    /// What reading a value the key-value API writes will require (`nil`: nothing beyond its accessibility).
    public private(set) var accessControl: AccessControlFlags?
    /// The context whose evaluation and credentials reads and writes use, and whose prompts they show.
    public private(set) var authenticationContext: AuthenticationContext?
    /// The text shown when the user is asked to authenticate (`kSecUseOperationPrompt`).
    public private(set) var operationPrompt: String?

    let connection: Connection
    let identity: Result<ApplicationIdentity, KeychainError>

    /// A keychain in `directory` (embedded: this process opens its files), or the process's default keychain:
    /// keychaind's when a daemon serves this user (`KEYCHAIN_DAEMON`, or the default socket), else the embedded one
    /// in the default directory (`$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else
    /// `~/.local/share/swift-keychain`), created when missing.
    ///
    /// - Parameters:
    ///   - service: The service of the key-value API's items.
    ///   - directory: Where the keychain lives; `nil` for the default keychain.
    ///   - identity: Who the items belong to; `nil` for ``ApplicationIdentity/current()``.
    ///   - passcodeHashing: How hard a passcode set through this keychain is stretched. Values on the same
    ///     directory share one engine, and the first one opened decides.
    public init(
        service: String, directory: URL? = nil, identity: ApplicationIdentity? = nil,
        passcodeHashing: PasscodeHashing = .standard
    ) {
        // The process's one default, unless a test set an environment of its own for this task.
        let storage =
            directory.map { KeychainStorage.directory($0) }
            ?? Self.environmentOverride.map { KeychainStorage.defaultStorage(environment: $0) } ?? .processDefault
        self.init(
            service: service,
            connection: ConnectionRegistry.connection(
                to: storage, options: EngineOptions(passcodeCost: passcodeHashing.cost)),
            identity: identity)
    }

    /// A keychain in memory: the same engine and rules as on disk (encryption, protection classes, passcode and
    /// lock state, access groups, errors), with nothing written anywhere. Every call makes a new, empty keychain,
    /// shared by the values configured from it and gone when the last is released. For tests; its passcodes use
    /// ``PasscodeHashing/minimum``.
    public static func inMemory(service: String, identity: ApplicationIdentity? = nil) -> Keychain {
        Keychain(
            service: service,
            connection: Connection(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum)),
            identity: identity)
    }

    /// A keychain served by a backend the caller opened: the embedded engine (`Engine`), one from
    /// `KeychainBackends`, or any other `KeychainBackend`. Values made from this one share its change stream;
    /// other values on the same backend do not hear of the changes made through it. ``directory`` is `nil`.
    ///
    /// - Parameters:
    ///   - service: The service of the key-value API's items.
    ///   - backend: Where the items are.
    ///   - identity: Who the items belong to; `nil` for ``ApplicationIdentity/current()``.
    public init(service: String, backend: any KeychainBackend, identity: ApplicationIdentity? = nil) {
        self.init(service: service, connection: Connection(backend: backend), identity: identity)
    }

    private init(service: String, connection: Connection, identity: ApplicationIdentity?) {
        self.service = service
        self.connection = connection
        self.identity = identity.map { .success($0) } ?? Result { () throws(KeychainError) in try .current() }
    }

    /// The directory the keychain lives in, or `nil` for an in-memory keychain or one given as a backend.
    public var directory: URL? {
        if case .some(.directory(let url)) = connection.storage { url } else { nil }
    }

    // MARK: Configuration

    /// This keychain with the key-value API on another service.
    public func service(_ service: String) -> Keychain { with { $0.service = service } }

    /// This keychain with the key-value API in an access group (`nil`: the identity's groups).
    public func accessGroup(_ accessGroup: String?) -> Keychain { with { $0.accessGroup = accessGroup } }

    /// This keychain writing items with another accessibility.
    public func accessibility(_ accessibility: Accessibility) -> Keychain {
        with { $0.accessibility = accessibility }
    }

    /// This keychain working on synchronizable items (`true`) or local ones (`false`).
    public func synchronizable(_ synchronizable: Bool) -> Keychain {
        with { $0.isSynchronizable = synchronizable }
    }

    /// This keychain writing items with a label (`nil`: labels are left alone).
    public func label(_ label: String?) -> Keychain { with { $0.label = label } }

    /// This keychain writing items whose data needs the user's authentication to read (DESIGN §11):
    /// `.userPresence` or `.devicePasscode` ask for the keychain passcode, `.applicationPassword` for a password of
    /// the item's own (from ``authenticationContext(_:)``, or asked for). `nil` writes items without. Items with
    /// access control never sync, and need a keychain passcode when they name it.
    public func accessControl(_ flags: AccessControlFlags?) -> Keychain { with { $0.accessControl = flags } }

    /// This keychain using an authentication context (an `LAContext`'s, or one of its own) for its reads and
    /// writes: what the context evaluated is reused within its window, and its application password is used.
    public func authenticationContext(_ context: AuthenticationContext?) -> Keychain {
        with { $0.authenticationContext = context }
    }

    /// This keychain showing `prompt` when it asks the user to authenticate.
    public func operationPrompt(_ prompt: String?) -> Keychain { with { $0.operationPrompt = prompt } }

    private func with(_ change: (inout Keychain) -> Void) -> Keychain {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: Internal

    /// The environment default locations and the default identity are read from. A task-local, so tests can run
    /// code that uses the defaults against a temporary directory without touching the process's environment.
    @TaskLocal static var environmentOverride: ProcessEnvironment?

    /// The environment in effect.
    static var environment: ProcessEnvironment { environmentOverride ?? .current }

    /// Runs engine work for this keychain's identity, turning an engine error into a `KeychainError` that says
    /// what was being done.
    func perform<Output>(
        _ context: @autoclosure () -> String,
        _ body: (Connection, Caller) throws(EngineError) -> Output
    ) throws(KeychainError) -> Output {
        let caller = try identity.get().caller
        do {
            return try body(connection, caller)
        } catch {
            throw KeychainError(error, doing: context())
        }
    }

    /// Runs engine work that needs no identity (the keybag's), turning an engine error into a `KeychainError`.
    func performOnKeybag<Output>(
        _ context: @autoclosure () -> String,
        _ body: (Connection) throws(EngineError) -> Output
    ) throws(KeychainError) -> Output {
        do {
            return try body(connection)
        } catch {
            throw KeychainError(error, doing: context())
        }
    }
}
