import Foundation

extension Engine {
    /// Adds an item: fills in the caller's default access group, accessibility `ak`, synchronizable `false` and
    /// the dates (always now, as Apple does); refuses a duplicate primary key.
    @discardableResult
    public func add(_ newItem: NewItem, for caller: Caller) throws(EngineError) -> Item {
        try ItemValidator.check(newItem.attributes, for: newItem.itemClass)
        try ItemValidator.check(data: newItem.data)
        var attributes = newItem.attributes
        let group = attributes.string(.accessGroup) ?? caller.defaultGroup
        try caller.checkEntitlement(to: group)
        attributes[.accessGroup] = .string(group)
        let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
        attributes[.accessible] = .string(protectionClass.rawValue)
        let synchronizable = attributes.bool(.synchronizable) ?? false
        try ItemValidator.checkSynchronizable(synchronizable, protectionClass)
        attributes[.synchronizable] = .bool(synchronizable)
        let now = Date(timeIntervalSinceReferenceDate: options.now().timeIntervalSinceReferenceDate)
        attributes[.creationDate] = .date(now)
        attributes[.modificationDate] = .date(now)
        let uuid = UUID()
        let reference = PersistentReference(itemClass: newItem.itemClass, uuid: uuid)
        try state.withLock { (state) throws(EngineError) in
            let stored = try state.sealer.seal(
                itemClass: newItem.itemClass, attributes: attributes, data: newItem.data,
                uuid: reference.uuidBytes, keybag: state.keybag)
            do throws(EngineError) {
                try state.store.insert(stored)
            } catch  where error.code == .duplicateItem {
                throw Self.duplicate(newItem.itemClass, attributes)
            }
        }
        return Item(
            itemClass: newItem.itemClass, attributes: attributes, data: newItem.data, persistentReference: reference)
    }

    /// Returns the items a query matches: the first one unless the query's limit says otherwise.
    public func copyMatching(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> [Item] {
        let limit = query.limit ?? .one
        guard limit.maximum >= 1 else { throw .param("the match limit \(limit.maximum) is not positive") }
        let result = try state.withLock { (state) throws(EngineError) -> SearchResult in
            try state.search.run(query, for: caller, withData: query.returning.contains(.data), limit: limit.maximum)
        }
        try Self.checkFound(result, query)
        return result.matches.map { match in
            Item(
                itemClass: match.stored.itemClass, attributes: match.attributes, data: match.data,
                persistentReference: PersistentReference(
                    itemClass: match.stored.itemClass, uuid: UUID(bytes: match.stored.uuid) ?? UUID()))
        }
    }

    /// Changes every item a query matches, all or nothing: a move onto an existing primary key is a duplicate,
    /// `mdat` becomes now, and a change of accessibility or access group rewraps the item's key.
    public func update(
        _ query: ItemQuery, with changes: ItemChanges, for caller: Caller
    ) throws(EngineError) -> Int {
        guard query.limit == nil else { throw .param("an update changes every match; it takes no match limit") }
        guard query.returning.isEmpty else { throw .param("an update returns nothing; it takes no return options") }
        guard !changes.isEmpty else { throw .param("the update changes nothing") }
        let itemClass = try ItemSearch.itemClass(of: query)
        try ItemValidator.check(changes.attributes, for: itemClass)
        if let data = changes.data { try ItemValidator.check(data: data) }
        if let group = changes.attributes.string(.accessGroup) { try caller.checkEntitlement(to: group) }
        var changed = changes.attributes
        changed[.creationDate] = nil
        changed[.modificationDate] = .date(options.now())
        return try state.withLock { (state) throws(EngineError) -> Int in
            try state.database.writeTransaction { () throws(EngineError) -> Int in
                let result = try state.search.run(query, for: caller, withData: changes.data == nil, limit: .max)
                try Self.checkFound(result, query)
                for match in result.matches {
                    let attributes = match.attributes.merging(changed)
                    let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
                    try ItemValidator.checkSynchronizable(attributes.bool(.synchronizable) ?? false, protectionClass)
                    let stored = try state.sealer.seal(
                        itemClass: itemClass, attributes: attributes, data: changes.data ?? match.data ?? Data(),
                        uuid: match.stored.uuid, keybag: state.keybag)
                    do throws(EngineError) {
                        try state.store.replace(rowID: match.rowID, with: stored)
                    } catch  where error.code == .duplicateItem {
                        throw Self.duplicate(itemClass, attributes)
                    }
                }
                return result.matches.count
            }
        }
    }

    /// Deletes every item a query matches, all or nothing. A synchronizable item leaves a tombstone (for sync);
    /// a query by persistent reference alone also deletes an item that fails authentication.
    public func delete(_ query: ItemQuery, for caller: Caller) throws(EngineError) -> Int {
        guard query.limit == nil else { throw .param("a delete removes every match; it takes no match limit") }
        let now = options.now()
        return try state.withLock { (state) throws(EngineError) -> Int in
            try state.database.writeTransaction { () throws(EngineError) -> Int in
                let result = try state.search.run(query, for: caller, withData: false, limit: .max)
                if result.matches.isEmpty, query.persistentReference != nil, query.attributes.isEmpty,
                    !result.damagedRowIDs.isEmpty
                {
                    for rowID in result.damagedRowIDs { try state.store.delete(rowID: rowID) }
                    return result.damagedRowIDs.count
                }
                try Self.checkFound(result, query)
                for match in result.matches {
                    if match.stored.synchronizable {
                        try state.store.tombstone(rowID: match.rowID, at: now)
                    } else {
                        try state.store.delete(rowID: match.rowID)
                    }
                }
                return result.matches.count
            }
        }
    }

    /// Throws when a search found nothing: the damaged row's decode error if one was skipped, else not found.
    private static func checkFound(_ result: SearchResult, _ query: ItemQuery) throws(EngineError) {
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
