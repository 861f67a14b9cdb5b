import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import Synchronization

/// **swift-keychain extension** (Apple's framework has no such type): the keychain and the caller identity that the
/// `SecItem…` functions use.
///
/// By default that is the process's keychain: the backend `KeychainBackends` gives for the default location
/// (`$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`, else `~/.local/share/swift-keychain`), the one `Keychain`
/// and protected files use there too, opened once, lazily, for the caller the process's entitlements name (`$KEYCHAIN_ENTITLEMENTS`, else `<executable>.entitlements` beside
/// the executable, else the default identity). The environment is read once.
///
/// ``run(_:)`` sends the calls made inside it, on the current task, to another keychain: each test of code written
/// against Apple's API can use its own keychain (for example `Engine(storage: .inMemory)`) and its own caller.
public struct SecItemKeychain: Sendable {
    /// Where the items are.
    public let backend: any KeychainBackend
    /// Whose calls these are: its access groups decide what it may see and change.
    public let caller: Caller

    /// Names a keychain and a caller.
    public init(backend: any KeychainBackend, caller: Caller) {
        self.backend = backend
        self.caller = caller
    }

    /// Runs `operation` with every `SecItem…` call it makes on the current task (and its child tasks) going to this
    /// keychain as this caller.
    public func run<Result>(_ operation: () throws -> Result) rethrows -> Result {
        try Self.$scoped.withValue(self, operation: operation)
    }

    /// Runs `operation` with every `SecItem…` call it makes on the current task and its child tasks going to this
    /// keychain as this caller.
    public func run<Result>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> Result
    ) async rethrows -> Result {
        try await Self.$scoped.withValue(self, operation: operation)
    }

    /// The keychain set by ``run(_:)``, if any.
    @TaskLocal private static var scoped: SecItemKeychain?

    /// The keychain a call made now uses: the scoped one, else the process's.
    static func current() throws(EngineError) -> SecItemKeychain {
        // An embedded keychain uses and makes stored keys in this process.
        KeyUsePerformer.install()
        if let scoped { return scoped }
        return try ProcessKeychain.shared.keychain()
    }
}

/// The process's own keychain, opened on first use. An open that fails is retried by the next call (the directory
/// may become writable); one that succeeds is kept for the life of the process.
final class ProcessKeychain: Sendable {
    static let shared = ProcessKeychain()

    private let opened = Mutex<SecItemKeychain?>(nil)
    private let environment = ProcessEnvironment.current

    func keychain() throws(EngineError) -> SecItemKeychain {
        try opened.withLock { (opened) throws(EngineError) -> SecItemKeychain in
            if let opened { return opened }
            let caller: Caller
            do throws(EngineError) {
                caller = try Caller.current(environment: environment)
            } catch {
                throw EngineError(.missingEntitlement, "the caller's entitlements cannot be read: \(error.message)")
            }
            let keychain = SecItemKeychain(
                backend: try KeychainBackends.backend(for: .processDefault), caller: caller)
            opened = keychain
            return keychain
        }
    }
}
