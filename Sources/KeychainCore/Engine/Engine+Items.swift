import Foundation

extension Engine {
    /// An add, as a write to run under the lock inside a write transaction: fills in the caller's default access
    /// group, accessibility `ak`, synchronizable `false` and the dates (always now, as Apple does); refuses a
    /// duplicate primary key.
    func preparedAdd(_ newItem: NewItem, for caller: Caller) -> PreparedWrite<Item> {
        { (state) throws(EngineError) -> Item in
            let (item, stored) = try self.prepare(newItem, for: caller, in: state)
            try self.insert(stored, item: item, in: state)
            return item
        }
    }

    /// Checks an item to add, fills in its defaults and seals it with the next change sequence (inside the add's
    /// write transaction).
    func prepare(
        _ newItem: NewItem, for caller: Caller, in state: EngineState
    ) throws(EngineError) -> (Item, StoredItem) {
        try ItemValidator.check(newItem.attributes, for: newItem.itemClass)
        try ItemValidator.check(data: newItem.data)
        try ItemValidator.checkKeyExtraction(newItem.attributes, itemClass: newItem.itemClass, current: nil)
        var attributes = newItem.attributes
        let group = attributes.string(.accessGroup) ?? caller.defaultGroup
        try caller.checkEntitlement(to: group)
        attributes[.accessGroup] = .string(group)
        let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
        attributes[.accessible] = .string(protectionClass.rawValue)
        let synchronizable = attributes.bool(.synchronizable) ?? false
        if !newItem.allowsThisDeviceOnlySynchronizable {
            try ItemValidator.checkSynchronizable(synchronizable, protectionClass)
        }
        attributes[.synchronizable] = .bool(synchronizable)
        let now = options.now()
        attributes[.creationDate] = .date(now)
        attributes[.modificationDate] = .date(now)
        let reference = PersistentReference(itemClass: newItem.itemClass, uuid: try UUID.itemIdentifier())
        let access = try accessSealing(
            for: &attributes, itemClass: newItem.itemClass, uuid: reference.uuid,
            authentication: newItem.authentication, in: state)
        let stored = try state.sealer.seal(
            itemClass: newItem.itemClass, attributes: attributes, data: newItem.data, uuid: reference.uuid,
            sequence: try state.store.changeLog.nextSequence(), keybag: state.keybag, access: access)
        let item = Item(
            itemClass: newItem.itemClass, attributes: attributes, data: newItem.data, persistentReference: reference)
        return (item, stored)
    }

    /// Inserts a sealed item, turning a uniqueness violation into a duplicate-item error that names the key.
    func insert(_ stored: StoredItem, item: Item, in state: EngineState) throws(EngineError) {
        do throws(EngineError) {
            try state.store.insert(stored)
        } catch  where error.code == .duplicateItem {
            throw Self.duplicate(item.itemClass, item.attributes)
        }
    }

    /// Returns the items a query matches: the first one unless the query's limit says otherwise. Each item carries
    /// its attributes only when the query returns ``ReturnOptions/attributes``, its data only with
    /// ``ReturnOptions/data``.
    public func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        let limit = query.limit ?? .one
        guard limit.maximum >= 1 else { throw .param("the match limit \(limit.maximum) is not positive") }
        // Without authentication a constrained item needs the user, which the search decides without a release.
        let release =
            try query.returning.contains(.data) && query.authentication != nil
            ? factorRelease(query.authentication) : nil
        let result = try search(query, limit: limit, release: release, for: caller)
        let withAttributes = query.returning.contains(.attributes)
        return result.matches.map { match in
            // A non-extractable key's bytes never leave the keychain: it is used through ``useKey(_:_:for:)``.
            let keepsData = match.attributes.map(ItemValidator.isExtractable) ?? true
            return Item(
                itemClass: match.itemClass, attributes: withAttributes ? match.attributes ?? [:] : [:],
                data: keepsData ? match.data : nil,
                persistentReference: PersistentReference(
                    itemClass: match.itemClass, uuid: match.uuid))
        }
    }

    /// The search of a read: what the query returns, and the attributes of a key whose data it returns (its
    /// extractability decides whether the data may go).
    func search(
        _ query: ItemQuery, limit: MatchLimit, release: FactorRelease?, for caller: Caller
    ) throws(EngineError) -> SearchResult {
        let result = try state.withLock { (state) throws(EngineError) -> SearchResult in
            try state.checkServable()
            var needs: SearchNeeds = []
            if query.returning.contains(.data) {
                needs.insert(.data)
                // Only a key's attributes say whether its data may leave: a query that cannot reach a key opens none.
                let itemClass = query.itemClass ?? query.persistentReference?.itemClass
                if itemClass == nil || itemClass == .key { needs.insert(.attributes) }
            }
            if query.returning.contains(.attributes) { needs.insert(.attributes) }
            return try state.search.run(
                query, for: caller, needs: needs, limit: limit.maximum, release: release,
                byteLimit: options.resultByteLimit)
        }
        try Self.checkFound(result, query)
        return result
    }

    /// The factors an update releases: only one that writes new data needs them (for items with access control).
    func updateRelease(_ query: ItemQuery, _ changes: ItemChanges) throws(EngineError) -> FactorRelease? {
        changes.data == nil ? nil : try factorRelease(query.authentication)
    }

    /// An update, checked, as a write to run under the lock inside a write transaction: changes every item a query
    /// matches, all or nothing (a move onto an existing primary key is a duplicate), `mdat` becomes now, and a
    /// change of accessibility or access group rewraps the item's key. It returns the items with their new
    /// attributes.
    func preparedUpdate(
        _ query: ItemQuery, with changes: ItemChanges, for caller: Caller, release: FactorRelease?
    ) throws(EngineError) -> PreparedWrite<[Item]> {
        guard query.limit == nil else { throw .param("an update changes every match; it takes no match limit") }
        guard query.returning.isEmpty else { throw .param("an update returns nothing; it takes no return options") }
        guard !changes.isEmpty else { throw .param("the update changes nothing") }
        let itemClass = try ItemSearch.itemClass(of: query)
        try ItemValidator.check(changes.attributes, for: itemClass)
        if let data = changes.data { try ItemValidator.check(data: data) }
        if let group = changes.attributes.string(.accessGroup) { try caller.checkEntitlement(to: group) }
        if changes.attributes[.accessControl] != nil {
            throw .param(
                "an update cannot change an item's access control (accc): delete the item and add it again")
        }
        var changed = changes.attributes
        changed[.creationDate] = nil
        changed[.modificationDate] = .date(options.now())
        return { [changed] (state) throws(EngineError) -> [Item] in
            let needs: SearchNeeds =
                changes.data == nil ? [.attributes, .data, .sealing] : [.attributes, .sealing, .constrainedData]
            let result = try state.search.run(query, for: caller, needs: needs, limit: .max, release: release)
            try Self.checkFound(result, query)
            return try result.matches.map { (match) throws(EngineError) -> Item in
                Item(
                    itemClass: itemClass,
                    attributes: try self.rewrite(match, itemClass: itemClass, with: changed, changes, in: state),
                    data: nil, persistentReference: PersistentReference(itemClass: itemClass, uuid: match.uuid))
            }
        }
    }

    /// Writes changed attributes (and a new secret, if any) over one match of an update, inside its write
    /// transaction, and returns the item's new attributes.
    func rewrite(
        _ match: ItemMatch, itemClass: ItemClass, with changed: ItemAttributes, _ changes: ItemChanges,
        in state: EngineState
    ) throws(EngineError) -> ItemAttributes {
        guard let current = match.attributes else {
            throw .internalError("an update's match has no attributes")
        }
        let attributes = current.merging(changed)
        try ItemValidator.checkKeyExtraction(attributes, itemClass: itemClass, current: current)
        let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
        if !changes.allowsThisDeviceOnlySynchronizable {
            try ItemValidator.checkSynchronizable(attributes.bool(.synchronizable) ?? false, protectionClass)
        }
        let access = try Self.accessSealing(of: match, current: current, attributes: attributes, changes)
        let stored = try state.sealer.seal(
            itemClass: itemClass, attributes: attributes, data: changes.data ?? match.data ?? Data(),
            uuid: match.uuid, sequence: try state.store.changeLog.nextSequence(), keybag: state.keybag,
            access: access)
        do throws(EngineError) {
            try state.store.replace(rowID: match.rowID, with: stored)
        } catch  where error.code == .duplicateItem {
            throw Self.duplicate(itemClass, attributes)
        }
        return attributes
    }

    /// A delete, checked, as a write to run under the lock inside a write transaction: deletes every item a query
    /// matches, all or nothing (a synchronizable item too: sync reads the removal from the change feed); a query by
    /// persistent reference alone also deletes an item that fails authentication. It returns the items with their
    /// last attributes (none for such a damaged one).
    func preparedDelete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> PreparedWrite<[Item]> {
        guard query.limit == nil else { throw .param("a delete removes every match; it takes no match limit") }
        let now = options.now()
        return { (state) throws(EngineError) -> [Item] in
            // Attributes for the access group the removal records.
            let result = try state.search.run(query, for: caller, needs: [.attributes], limit: .max)
            if result.matches.isEmpty, query.persistentReference != nil, query.attributes.isEmpty,
                !result.damagedRowIDs.isEmpty
            {
                for rowID in result.damagedRowIDs { try state.store.delete(rowID: rowID, at: now) }
                return query.persistentReference.map { reference in
                    Array(
                        repeating: Item(
                            itemClass: reference.itemClass, attributes: [:], data: nil,
                            persistentReference: reference),
                        count: result.damagedRowIDs.count)
                } ?? []
            }
            try Self.checkFound(result, query)
            // A synchronizable item's row goes like any other (issue 21, item 12): sync learns of the removal from
            // the change feed, whose record is all it needs; no row keeps its sealed attributes or lookup hashes.
            for match in result.matches {
                try state.store.delete(rowID: match.rowID, accessGroup: match.attributes?.string(.accessGroup), at: now)
            }
            return result.matches.map { match in
                Item(
                    itemClass: match.itemClass, attributes: match.attributes ?? [:], data: nil,
                    persistentReference: PersistentReference(itemClass: match.itemClass, uuid: match.uuid))
            }
        }
    }

    /// Throws when a search found nothing: the damaged row's decode error if one was skipped, else not found.
    static func checkFound(_ result: SearchResult, _ query: ItemQuery) throws(EngineError) {
        guard result.matches.isEmpty else { return }
        if let damaged = result.damaged { throw damaged }
        throw EngineError(.itemNotFound, "no item matches the query: \(query.summary)")
    }

    /// The duplicate-item error, naming the primary key.
    private static func duplicate(_ itemClass: ItemClass, _ attributes: ItemAttributes) -> EngineError {
        let key = ([AttributeKey.accessGroup, .synchronizable] + itemClass.primaryKey).compactMap { attribute in
            attributes[attribute].map { "\(attribute.rawValue) \($0)" }
        }
        return EngineError(
            .duplicateItem,
            "an item of class \(itemClass.rawValue) with the same primary key already exists (\(key.joined(separator: ", ")))"
        )
    }
}
