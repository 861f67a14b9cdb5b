import Foundation

extension Engine {
    /// An add-or-update, checked, as a write to run under the lock inside a write transaction: adds an item or,
    /// when one with its primary key exists, writes the item's attributes and secret over it (see
    /// ``KeychainBackend/addOrUpdate(_:for:)``), so no other writer can add or remove the key between the lookup
    /// and the write.
    func preparedAddOrUpdate(_ newItem: NewItem, for caller: Caller) throws(EngineError) -> PreparedWrite<Item> {
        try ItemValidator.check(newItem.attributes, for: newItem.itemClass)
        try ItemValidator.check(data: newItem.data)
        let query = ItemQuery(primaryKeyOf: newItem, for: caller)
        if let group = query.attributes.string(.accessGroup) { try caller.checkEntitlement(to: group) }
        var changed = newItem.attributes
        changed[.creationDate] = nil
        changed[.modificationDate] = .date(options.now())
        let changes = ItemChanges(
            attributes: changed, data: newItem.data,
            allowsThisDeviceOnlySynchronizable: newItem.allowsThisDeviceOnlySynchronizable)
        // Writing over an item with access control needs its factors, which the new item's authentication brings.
        let release = try factorRelease(newItem.authentication)
        return { [changed] (state) throws(EngineError) -> Item in
            let result = try state.search.run(
                query, for: caller, needs: [.attributes, .sealing, .constrainedData], limit: 1, release: release)
            if let match = result.matches.first {
                let attributes = try self.rewrite(
                    match, itemClass: newItem.itemClass, with: changed, changes, in: state)
                return Item(
                    itemClass: newItem.itemClass, attributes: attributes, data: newItem.data,
                    persistentReference: PersistentReference(itemClass: newItem.itemClass, uuid: match.uuid))
            }
            // A damaged row holding the key: adding would collide with it, so its decode error is the answer.
            if let damaged = result.damaged { throw damaged }
            let (item, stored) = try self.prepare(newItem, for: caller, in: state)
            try self.insert(stored, item: item, in: state)
            return item
        }
    }

    /// Adds every item, as a write to run under the lock inside a write transaction: all of them, or none.
    func preparedBatch(_ items: [NewItem], for caller: Caller) -> PreparedWrite<[Item]> {
        { (state) throws(EngineError) -> [Item] in
            var added: [Item] = []
            added.reserveCapacity(items.count)
            for newItem in items {
                let (item, stored) = try self.prepare(newItem, for: caller, in: state)
                try self.insert(stored, item: item, in: state)
                added.append(item)
            }
            return added
        }
    }
}
