import Foundation
import KeychainCore
import KeychainPrompts

/// The key-value API: a secret per key, stored as a generic password whose account is the key and whose service
/// is the keychain's ``Keychain/service``, in its access group, with its synchronizable flag.
///
/// Values are `Data` (stored as is), `String` (UTF-8) or any other `Codable` type (JSON).
extension Keychain {
    /// Stores a value for a key, replacing any value the key has.
    ///
    /// An existing item is updated in place with the keychain's ``accessibility`` (and ``label``, when set):
    /// its key is rewrapped in the same transaction, never deleted and added again, so a failure leaves the old
    /// item exactly as it was. Throws ``KeychainError/interactionNotAllowed`` when the old or the new protection
    /// class is locked, ``KeychainError/missingEntitlement`` for an access group the identity lacks,
    /// ``KeychainError/param`` for a value that cannot be encoded or a synchronizable keychain whose
    /// accessibility never leaves the device.
    public func set<Value: Encodable>(_ value: Value, for key: String) throws(KeychainError) {
        let data = try ValueCoding.encode(value, key: key)
        try perform("cannot store \(describe(key))") { (connection, caller) throws(EngineError) in
            try store(data, for: key, connection, caller)
        }
    }

    /// The text stored for a key, or `nil` when the key has no item. Every other failure is thrown: a locked
    /// keychain (``KeychainError/interactionNotAllowed``), an altered item or data that is not UTF-8
    /// (``KeychainError/decode``), a missing entitlement.
    public func get(_ key: String) throws(KeychainError) -> String? {
        try get(key, as: String.self)
    }

    /// The value stored for a key, decoded as `type`, or `nil` when the key has no item. Every other failure is
    /// thrown; data that does not decode as `type` is ``KeychainError/decode``, naming the key and the field.
    public func get<Value: Decodable>(_ key: String, as type: Value.Type) throws(KeychainError) -> Value? {
        guard let data = try data(for: key) else { return nil }
        return try ValueCoding.decode(type, from: data, key: key)
    }

    /// Whether the key has an item. Reads attributes only; throws like `get(_:)` (a locked keychain is an error,
    /// not `false`).
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        try perform("cannot look up \(describe(key))") { (connection, caller) throws(EngineError) -> Bool in
            do throws(EngineError) {
                return try !connection.backend().copyMatching(valueQuery(key), for: caller).isEmpty
            } catch  where KeychainError.isNotFound(error) {
                return false
            }
        }
    }

    /// Removes a key's item; returns whether there was one.
    @discardableResult
    public func remove(_ key: String) throws(KeychainError) -> Bool {
        try perform("cannot remove \(describe(key))") { (connection, caller) throws(EngineError) -> Bool in
            do throws(EngineError) {
                return try connection.delete(valueQuery(key), for: caller) > 0
            } catch  where KeychainError.isNotFound(error) {
                return false
            }
        }
    }

    /// Every key of this keychain's service (in its access group and synchronizable flag), sorted. Reads
    /// attributes only.
    public func allKeys() throws(KeychainError) -> [String] {
        try perform("cannot list the keys of service \"\(service)\"") {
            (connection, caller) throws(EngineError) -> [String] in
            var query = valueQuery(nil)
            query.limit = .all
            query.returning = .attributes
            do throws(EngineError) {
                return try connection.backend().copyMatching(query, for: caller)
                    .map { $0.attributes.string(.account) ?? "" }.sorted()
            } catch  where KeychainError.isNotFound(error) {
                return []
            }
        }
    }

    /// Removes every key of this keychain's service, all or nothing; returns how many.
    @discardableResult
    public func removeAll() throws(KeychainError) -> Int {
        try perform("cannot remove the keys of service \"\(service)\"") {
            (connection, caller) throws(EngineError) -> Int in
            do throws(EngineError) {
                return try connection.delete(valueQuery(nil), for: caller)
            } catch  where KeychainError.isNotFound(error) {
                return 0
            }
        }
    }

    // MARK: Internal

    /// The query for one key's item, or for every key's when `key` is `nil`.
    func valueQuery(_ key: String?) -> ItemQuery {
        var attributes: ItemAttributes = [.service: .string(service)]
        attributes[.account] = key.map { .string($0) }
        attributes[.accessGroup] = accessGroup.map { .string($0) }
        return ItemQuery(
            itemClass: .genericPassword, attributes: attributes, synchronizable: SynchronizableFilter(isSynchronizable))
    }

    /// `"alice" (service "api")`, for messages.
    func describe(_ key: String) -> String { "\"\(key)\" (service \"\(service)\")" }

    // MARK: Private

    /// The secret of a key's item, or `nil` when it has none.
    private func data(for key: String) throws(KeychainError) -> Data? {
        try perform("cannot read \(describe(key))") { (connection, caller) throws(EngineError) -> Data? in
            var query = valueQuery(key)
            query.returning = .data
            let backend = try connection.backend()
            do throws(EngineError) {
                return try authenticated(backend) { (authentication) throws(EngineError) -> Data? in
                    query.authentication = authentication
                    return try backend.copyMatching(query, for: caller).first?.data ?? Data()
                }
            } catch  where KeychainError.isNotFound(error) {
                return nil
            }
        }
    }

    /// Adds the key's item, or writes the value, accessibility and label over the one there, in one transaction
    /// (the backend's `addOrUpdate(_:for:)`): no other writer can come between the lookup and the write.
    private func store(_ data: Data, for key: String, _ connection: Connection, _ caller: Caller) throws(EngineError) {
        var attributes = valueQuery(key).attributes
        attributes[.accessible] = .string(accessibility.rawValue)
        attributes[.label] = label.map { .string($0) }
        attributes[.synchronizable] = .bool(isSynchronizable)
        if let accessControl { attributes[.accessControl] = try AccessConstraint(flags: accessControl).attributeValue }
        _ = try authenticated(try connection.backend()) { (authentication) throws(EngineError) -> Item in
            try connection.addOrUpdate(
                NewItem(
                    itemClass: .genericPassword, attributes: attributes, data: data, authentication: authentication),
                for: caller)
        }
    }

    /// Runs a request through the authentication loop with this keychain's context and prompt (the key-value API
    /// and the typed items both use it).
    func authenticated<Output>(
        _ backend: any KeychainBackend, _ request: (ItemAuthentication) throws(EngineError) -> Output
    ) throws(EngineError) -> Output {
        try AuthenticationLoop.perform(
            AuthenticationLoop.Options(context: authenticationContext, operationPrompt: operationPrompt),
            backend: backend, request)
    }
}
