import Foundation
import KeychainCore

/// Typed items: generic and internet passwords with all their attributes. The keychain's configuration
/// (service, access group, accessibility, label) does not apply here: each item says its own.
extension Keychain {
    /// Adds a generic password with its secret and returns it as stored (access group, dates and persistent
    /// reference filled in). Throws ``KeychainError/duplicateItem`` when an item with the same key exists.
    @discardableResult
    public func add(_ item: GenericPassword, secret: Data) throws(KeychainError) -> GenericPassword {
        try addItem(item, secret: secret)
    }

    /// Adds an internet password with its secret and returns it as stored. Throws
    /// ``KeychainError/duplicateItem`` when an item with the same key exists.
    @discardableResult
    public func add(_ item: InternetPassword, secret: Data) throws(KeychainError) -> InternetPassword {
        try addItem(item, secret: secret)
    }

    /// Writes every attribute of a generic password (and its secret, when given) to the stored item and returns
    /// it as stored now. The item is the one its persistent reference names, else the one with its key.
    /// A change of accessibility rewraps the item's key in the same transaction. Throws
    /// ``KeychainError/itemNotFound`` when there is no such item.
    @discardableResult
    public func update(_ item: GenericPassword, secret: Data? = nil) throws(KeychainError) -> GenericPassword {
        try updateItem(item, secret: secret)
    }

    /// Writes every attribute of an internet password (and its secret, when given) to the stored item and returns
    /// it as stored now. Throws ``KeychainError/itemNotFound`` when there is no such item.
    @discardableResult
    public func update(_ item: InternetPassword, secret: Data? = nil) throws(KeychainError) -> InternetPassword {
        try updateItem(item, secret: secret)
    }

    /// Adds a generic password or, when one with its key exists, writes the attributes it sets and its secret over
    /// that one, in one transaction; returns it as stored. The stored item keeps the attributes this value leaves
    /// unset, its creation date and its persistent reference.
    @discardableResult
    public func addOrUpdate(_ item: GenericPassword, secret: Data) throws(KeychainError) -> GenericPassword {
        try addOrUpdateItem(item, secret: secret)
    }

    /// Adds an internet password or, when one with its key exists, writes the attributes it sets and its secret
    /// over that one, in one transaction; returns it as stored.
    @discardableResult
    public func addOrUpdate(_ item: InternetPassword, secret: Data) throws(KeychainError) -> InternetPassword {
        try addOrUpdateItem(item, secret: secret)
    }

    /// Removes a generic password (by persistent reference, else by key); returns whether there was one.
    @discardableResult
    public func remove(_ item: GenericPassword) throws(KeychainError) -> Bool {
        try removeItem(item)
    }

    /// Removes an internet password (by persistent reference, else by key); returns whether there was one.
    @discardableResult
    public func remove(_ item: InternetPassword) throws(KeychainError) -> Bool {
        try removeItem(item)
    }

    /// The secret of a generic password, or `nil` when there is no such item.
    public func secret(for item: GenericPassword) throws(KeychainError) -> Data? {
        try secretOfItem(item)
    }

    /// The secret of an internet password, or `nil` when there is no such item.
    public func secret(for item: InternetPassword) throws(KeychainError) -> Data? {
        try secretOfItem(item)
    }

    /// The generic passwords a query matches, attributes only (secrets are read one item at a time with
    /// `secret(for:)`). Empty when none match; a locked item among the candidates throws
    /// ``KeychainError/interactionNotAllowed``.
    public func items(matching query: GenericPassword.Query) throws(KeychainError) -> [GenericPassword] {
        try itemsMatching(query)
    }

    /// The internet passwords a query matches, attributes only. Empty when none match.
    public func items(matching query: InternetPassword.Query) throws(KeychainError) -> [InternetPassword] {
        try itemsMatching(query)
    }

    /// The generic passwords a query matches, each with its secret, read in one request (one round trip through
    /// keychaind): all of them, or at most `limit`. `nil` when one of them needs the user to authenticate before
    /// its secret is read (an item with access control): this never asks, so read those one at a time with
    /// `secret(for:)`, which does. Empty when none match; a locked item among them throws
    /// ``KeychainError/interactionNotAllowed``. Through keychaind one reply carries at most 48 MiB: more is
    /// ``KeychainError/dataTooLarge``, naming the limit (ask for fewer, or list the items and read their secrets
    /// one at a time).
    public func itemsWithSecrets(
        matching query: GenericPassword.Query, limit: Int? = nil
    ) throws(KeychainError) -> [(item: GenericPassword, secret: Data)]? {
        try itemsWithSecretsMatching(query, limit: limit)
    }

    /// The internet passwords a query matches, each with its secret, read in one request: all of them, or at most
    /// `limit`; `nil` when one of them needs the user to authenticate (see the generic-password form).
    public func itemsWithSecrets(
        matching query: InternetPassword.Query, limit: Int? = nil
    ) throws(KeychainError) -> [(item: InternetPassword, secret: Data)]? {
        try itemsWithSecretsMatching(query, limit: limit)
    }

    // MARK: Private

    private func addItem<Value: StoredItemValue>(_ item: Value, secret: Data) throws(KeychainError) -> Value {
        try perform("cannot add the \(item.summary)") { (connection, caller) throws(EngineError) -> Value in
            try authenticated(try connection.backend()) { (authentication) throws(EngineError) -> Value in
                Value(
                    reading: try connection.add(
                        NewItem(
                            itemClass: Value.itemClass, attributes: item.attributesToAdd, data: secret,
                            authentication: authentication), for: caller))
            }
        }
    }

    private func addOrUpdateItem<Value: StoredItemValue>(_ item: Value, secret: Data) throws(KeychainError) -> Value {
        try perform("cannot store the \(item.summary)") { (connection, caller) throws(EngineError) -> Value in
            try authenticated(try connection.backend()) { (authentication) throws(EngineError) -> Value in
                Value(
                    reading: try connection.addOrUpdate(
                        NewItem(
                            itemClass: Value.itemClass, attributes: item.attributesToAdd, data: secret,
                            authentication: authentication), for: caller))
            }
        }
    }

    private func updateItem<Value: StoredItemValue>(_ item: Value, secret: Data?) throws(KeychainError) -> Value {
        let query = try item.identifyingQuery()
        return try perform("cannot update the \(item.summary)") {
            (connection, caller) throws(EngineError) -> Value in
            // The update answers the item as it stored it: no second request, and no other writer's change read back
            // as this one's.
            let updated = try authenticated(try connection.backend()) {
                (authentication) throws(EngineError) -> [Item] in
                var query = query
                query.authentication = authentication
                return try connection.update(
                    query, with: ItemChanges(attributes: item.attributesToUpdate, data: secret), for: caller)
            }
            guard let stored = updated.first else {
                throw EngineError(.itemNotFound, "the update of the \(item.summary) changed no item")
            }
            return Value(reading: stored)
        }
    }

    private func removeItem<Value: StoredItemValue>(_ item: Value) throws(KeychainError) -> Bool {
        let query = try item.identifyingQuery()
        return try perform("cannot remove the \(item.summary)") {
            (connection, caller) throws(EngineError) -> Bool in
            do throws(EngineError) {
                return try connection.delete(query, for: caller) > 0
            } catch  where KeychainError.isNotFound(error) {
                return false
            }
        }
    }

    private func secretOfItem<Value: StoredItemValue>(_ item: Value) throws(KeychainError) -> Data? {
        var query = try item.identifyingQuery()
        query.returning = .data
        return try perform("cannot read the secret of the \(item.summary)") {
            (connection, caller) throws(EngineError) -> Data? in
            do throws(EngineError) {
                return try authenticated(try connection.backend()) { (authentication) throws(EngineError) -> Data? in
                    var query = query
                    query.authentication = authentication
                    return try connection.backend().copyMatching(query, for: caller).first?.data ?? Data()
                }
            } catch  where KeychainError.isNotFound(error) {
                return nil
            }
        }
    }

    private func itemsWithSecretsMatching<Query: StoredItemQuery>(
        _ query: Query, limit: Int?
    ) throws(KeychainError) -> [(item: Query.Value, secret: Data)]? {
        var itemQuery = query.itemQuery
        itemQuery.limit = limit.map { .upTo(max(1, $0)) } ?? .all
        itemQuery.returning = [.attributes, .data]
        return try perform("cannot list \(Query.Value.self) items") {
            (connection, caller) throws(EngineError) -> [(item: Query.Value, secret: Data)]? in
            do throws(EngineError) {
                return try connection.backend().copyMatching(itemQuery, for: caller).map {
                    (Query.Value(reading: $0), $0.data ?? Data())
                }
            } catch  where KeychainError.isNotFound(error) {
                return []
            } catch  where error.code == .authNeeded {
                return nil
            }
        }
    }

    private func itemsMatching<Query: StoredItemQuery>(_ query: Query) throws(KeychainError) -> [Query.Value] {
        var itemQuery = query.itemQuery
        itemQuery.limit = .all
        itemQuery.returning = .attributes
        return try perform("cannot list \(Query.Value.self) items") {
            (connection, caller) throws(EngineError) -> [Query.Value] in
            do throws(EngineError) {
                return try connection.backend().copyMatching(itemQuery, for: caller).map(Query.Value.init(reading:))
            } catch  where KeychainError.isNotFound(error) {
                return []
            }
        }
    }
}
