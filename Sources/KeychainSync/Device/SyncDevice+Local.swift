import Foundation
import KeychainCore

extension SyncDevice {
    /// The local item with UUID `uuid` (either class), with its attributes and secret, or `nil` when it is gone.
    func localItem(_ uuid: UUID) throws(SyncError) -> Item? {
        for itemClass in SyncScope.classes {
            let query = ItemQuery(
                itemClass: itemClass, synchronizable: .any,
                persistentReference: PersistentReference(itemClass: itemClass, uuid: uuid),
                returning: [.attributes, .data]
            )
            do throws(EngineError) {
                if let item = try backend.copyMatching(query, for: Self.caller).first { return item }
            } catch {
                if error.code == .itemNotFound { continue }
                throw SyncError(error, "cannot read local item \(uuid)")
            }
        }
        return nil
    }

    /// Deletes the local item `uuid`, if it is there.
    func deleteLocal(_ uuid: UUID) throws(SyncError) {
        for itemClass in SyncScope.classes {
            let query = ItemQuery(
                itemClass: itemClass, synchronizable: .any,
                persistentReference: PersistentReference(itemClass: itemClass, uuid: uuid))
            do throws(EngineError) {
                if try backend.delete(query, for: Self.caller) > 0 { return }
            } catch {
                if error.code == .itemNotFound { continue }
                throw SyncError(error, "cannot delete local item \(uuid)")
            }
        }
    }

    /// Writes a version's content over the local item `uuid` and returns the item as this write stored it (the
    /// write's own result, so a user's edit landing just after it is never taken for sync's), or `nil` when the
    /// item is gone.
    func updateLocal(_ uuid: UUID, to content: ItemContent) throws(SyncError) -> Item? {
        let query = ItemQuery(
            itemClass: content.itemClass, synchronizable: .any,
            persistentReference: PersistentReference(itemClass: content.itemClass, uuid: uuid))
        var attributes = content.attributes
        attributes[.synchronizable] = .bool(true)
        let result: WriteResult
        do throws(EngineError) {
            result = try backend.written(
                .update(query, ItemChanges(attributes: attributes, data: content.data)), for: Self.caller)
        } catch {
            if error.code == .itemNotFound { return nil }
            throw SyncError(error, "cannot update local item \(uuid)")
        }
        guard var stored = result.items.first else { return nil }
        stored.data = content.data
        return stored
    }

    /// Adds a version's content as a new local item and returns it as this write stored it.
    func addLocal(_ content: ItemContent) throws(SyncError) -> Item {
        var attributes = content.attributes
        attributes[.synchronizable] = .bool(true)
        return try keychain("cannot add a synced item to the keychain") { () throws(EngineError) -> Item in
            try backend.add(
                NewItem(itemClass: content.itemClass, attributes: attributes, data: content.data), for: Self.caller)
        }
    }

    /// A local keyed hash of an item's content: equal contents, equal hashes (to recognise this device's own
    /// writes when the change feed reports them).
    func contentHash(_ content: ItemContent) throws(SyncError) -> Data {
        try keychain("cannot hash an item") { () throws(EngineError) -> Data in
            try KeyedHash.hash(content.canonicalBytes, key: localHashKey)
        }
    }

    /// A local keyed hash of an item's primary key.
    func keyHash(_ content: ItemContent) throws(SyncError) -> Data {
        try keychain("cannot hash an item's key") { () throws(EngineError) -> Data in
            try KeyedHash.hash(Data("key".utf8) + content.primaryKeyBytes, key: localHashKey)
        }
    }
}
