import KeychainCore

/// Why a sync operation failed.
public struct SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The store failed (``SyncStoreError``); trying again later may work when it is unavailable.
        case store(SyncStoreError.Kind)
        /// The keychain refused (`EngineError`), e.g. a locked class.
        case keychain(EngineError.Code)
        /// The keychain directory has no sync state yet (`sync-init` or `sync-join` first).
        case notConfigured
        /// The keychain directory has sync state already.
        case alreadyConfigured
        /// The store holds a trust circle already, or none when one was expected.
        case circle
        /// This device is not (or no longer) a trusted member of the circle.
        case notTrusted
        /// No join request, device or item matches what was asked for.
        case notFound
        /// A record or the sync state failed authentication or does not parse.
        case damaged
        /// A malformed argument.
        case invalidArgument
        /// Work left for the next pass (a local change to send before the item may be overwritten).
        case deferred
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// What failed, naming the record, device or value at fault.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }

    init(_ error: EngineError, _ context: String) {
        self.init(.keychain(error.code), "\(context): \(error.message)")
    }

    init(_ error: SyncStoreError) {
        self.init(.store(error.kind), "the sync store failed: \(error.message)")
    }
}

/// Runs a keychain call, turning its error into a ``SyncError`` that says what sync was doing.
func keychain<T>(_ context: @autoclosure () -> String, _ body: () throws(EngineError) -> T) throws(SyncError) -> T {
    do {
        return try body()
    } catch {
        throw SyncError(error, context())
    }
}

/// Runs a store call, turning its error into a ``SyncError``.
func storeCall<T>(_ body: () throws(SyncStoreError) -> T) throws(SyncError) -> T {
    do {
        return try body()
    } catch {
        throw SyncError(error)
    }
}
