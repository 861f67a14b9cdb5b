import Foundation

/// `async` variants of the key-value API, typed items and migration. Each does the blocking work off the caller's
/// executor, on the keychain's own queue, so neither an actor nor Swift's cooperative thread pool waits on a disk
/// write; the result and any error are the same as the synchronous call's.
extension Keychain {
    /// Stores a value for a key; see `set(_:for:)`.
    public func set<Value: Encodable & Sendable>(_ value: Value, for key: String) async throws(KeychainError) {
        try await offload { keychain throws(KeychainError) in try keychain.set(value, for: key) }
    }

    /// The text stored for a key, or `nil` when the key has no item; see `get(_:)`.
    public func get(_ key: String) async throws(KeychainError) -> String? {
        try await offload { keychain throws(KeychainError) in try keychain.get(key) }
    }

    /// The value stored for a key, or `nil` when the key has no item; see `get(_:as:)`.
    public func get<Value: Decodable & Sendable>(
        _ key: String, as type: Value.Type
    ) async throws(KeychainError) -> Value? {
        try await offload { keychain throws(KeychainError) in try keychain.get(key, as: type) }
    }

    /// Whether the key has an item; see `contains(_:)`.
    public func contains(_ key: String) async throws(KeychainError) -> Bool {
        try await offload { keychain throws(KeychainError) in try keychain.contains(key) }
    }

    /// Removes a key's item; see `remove(_:)`.
    @discardableResult
    public func remove(_ key: String) async throws(KeychainError) -> Bool {
        try await offload { keychain throws(KeychainError) in try keychain.remove(key) }
    }

    /// Every key of this keychain's service; see `allKeys()`.
    public func allKeys() async throws(KeychainError) -> [String] {
        try await offload { keychain throws(KeychainError) in try keychain.allKeys() }
    }

    /// Removes every key of this keychain's service; see `removeAll()`.
    @discardableResult
    public func removeAll() async throws(KeychainError) -> Int {
        try await offload { keychain throws(KeychainError) in try keychain.removeAll() }
    }

    // MARK: Typed items

    /// Adds a generic password; see `add(_:secret:)`.
    @discardableResult
    public func add(_ item: GenericPassword, secret: Data) async throws(KeychainError) -> GenericPassword {
        try await offload { keychain throws(KeychainError) in try keychain.add(item, secret: secret) }
    }

    /// Adds an internet password; see `add(_:secret:)`.
    @discardableResult
    public func add(_ item: InternetPassword, secret: Data) async throws(KeychainError) -> InternetPassword {
        try await offload { keychain throws(KeychainError) in try keychain.add(item, secret: secret) }
    }

    /// Updates a generic password; see `update(_:secret:)`.
    @discardableResult
    public func update(_ item: GenericPassword, secret: Data? = nil) async throws(KeychainError) -> GenericPassword {
        try await offload { keychain throws(KeychainError) in try keychain.update(item, secret: secret) }
    }

    /// Updates an internet password; see `update(_:secret:)`.
    @discardableResult
    public func update(_ item: InternetPassword, secret: Data? = nil) async throws(KeychainError) -> InternetPassword {
        try await offload { keychain throws(KeychainError) in try keychain.update(item, secret: secret) }
    }

    /// Adds a generic password or writes over the one with its key; see `addOrUpdate(_:secret:)`.
    @discardableResult
    public func addOrUpdate(_ item: GenericPassword, secret: Data) async throws(KeychainError) -> GenericPassword {
        try await offload { keychain throws(KeychainError) in try keychain.addOrUpdate(item, secret: secret) }
    }

    /// Adds an internet password or writes over the one with its key; see `addOrUpdate(_:secret:)`.
    @discardableResult
    public func addOrUpdate(_ item: InternetPassword, secret: Data) async throws(KeychainError) -> InternetPassword {
        try await offload { keychain throws(KeychainError) in try keychain.addOrUpdate(item, secret: secret) }
    }

    /// Removes a generic password; see `remove(_:)`.
    @discardableResult
    public func remove(_ item: GenericPassword) async throws(KeychainError) -> Bool {
        try await offload { keychain throws(KeychainError) in try keychain.remove(item) }
    }

    /// Removes an internet password; see `remove(_:)`.
    @discardableResult
    public func remove(_ item: InternetPassword) async throws(KeychainError) -> Bool {
        try await offload { keychain throws(KeychainError) in try keychain.remove(item) }
    }

    /// The secret of a generic password; see `secret(for:)`.
    public func secret(for item: GenericPassword) async throws(KeychainError) -> Data? {
        try await offload { keychain throws(KeychainError) in try keychain.secret(for: item) }
    }

    /// The secret of an internet password; see `secret(for:)`.
    public func secret(for item: InternetPassword) async throws(KeychainError) -> Data? {
        try await offload { keychain throws(KeychainError) in try keychain.secret(for: item) }
    }

    /// The generic passwords a query matches, attributes only; see `items(matching:)`.
    public func items(matching query: GenericPassword.Query) async throws(KeychainError) -> [GenericPassword] {
        try await offload { keychain throws(KeychainError) in try keychain.items(matching: query) }
    }

    /// The internet passwords a query matches, attributes only; see `items(matching:)`.
    public func items(matching query: InternetPassword.Query) async throws(KeychainError) -> [InternetPassword] {
        try await offload { keychain throws(KeychainError) in try keychain.items(matching: query) }
    }

    /// The generic passwords a query matches with their secrets, in one request; see `itemsWithSecrets(matching:limit:)`.
    public func itemsWithSecrets(
        matching query: GenericPassword.Query, limit: Int? = nil
    ) async throws(KeychainError) -> [(item: GenericPassword, secret: Data)]? {
        try await offload { keychain throws(KeychainError) in
            try keychain.itemsWithSecrets(matching: query, limit: limit)
        }
    }

    /// The internet passwords a query matches with their secrets, in one request; see `itemsWithSecrets(matching:limit:)`.
    public func itemsWithSecrets(
        matching query: InternetPassword.Query, limit: Int? = nil
    ) async throws(KeychainError) -> [(item: InternetPassword, secret: Data)]? {
        try await offload { keychain throws(KeychainError) in
            try keychain.itemsWithSecrets(matching: query, limit: limit)
        }
    }

    // MARK: Migration

    /// Moves the key-value API's items to another accessibility; see `migrateAccessibility(to:)`.
    @discardableResult
    public func migrateAccessibility(to accessibility: Accessibility) async throws(KeychainError) -> Int {
        try await offload { keychain throws(KeychainError) in try keychain.migrateAccessibility(to: accessibility) }
    }

    /// Moves the generic passwords a query matches to another accessibility.
    @discardableResult
    public func migrateAccessibility(
        of query: GenericPassword.Query, to accessibility: Accessibility
    ) async throws(KeychainError) -> Int {
        try await offload { keychain throws(KeychainError) in
            try keychain.migrateAccessibility(of: query, to: accessibility)
        }
    }

    /// Moves the internet passwords a query matches to another accessibility.
    @discardableResult
    public func migrateAccessibility(
        of query: InternetPassword.Query, to accessibility: Accessibility
    ) async throws(KeychainError) -> Int {
        try await offload { keychain throws(KeychainError) in
            try keychain.migrateAccessibility(of: query, to: accessibility)
        }
    }
}
