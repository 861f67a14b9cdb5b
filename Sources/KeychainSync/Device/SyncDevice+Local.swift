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

    /// The write of a version's content over the local item `uuid`, which answers the item as stored.
    func updateRequest(_ uuid: UUID, to content: ItemContent) -> BackendRequest {
        let query = ItemQuery(
            itemClass: content.itemClass, synchronizable: .any,
            persistentReference: PersistentReference(itemClass: content.itemClass, uuid: uuid))
        var attributes = content.attributes
        attributes[.synchronizable] = .bool(true)
        return .update(query, ItemChanges(attributes: attributes, data: content.data))
    }

    /// The add of a version's content as a new local item, which answers it as stored.
    func addRequest(_ content: ItemContent) -> BackendRequest {
        var attributes = content.attributes
        attributes[.synchronizable] = .bool(true)
        return .add(NewItem(itemClass: content.itemClass, attributes: attributes, data: content.data))
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
