import Foundation

/// One item a search matched, with the row it came from.
struct ItemMatch {
    var rowID: Int64
    var stored: StoredItem
    var attributes: ItemAttributes
    var data: Data?
}

/// What a search found: the matches, and the damaged rows it skipped.
struct SearchResult {
    var matches: [ItemMatch] = []
    /// The decode error of the first damaged row.
    var damaged: EngineError?
    /// The rows that failed authentication.
    var damagedRowIDs: [Int64] = []
}

/// Finds the items a query matches for a caller: validates the query, narrows rows in SQL by clear columns and
/// blind indexes, then decrypts each candidate and decides exactly.
///
/// As on Apple's platforms, a candidate in a class that is locked fails the whole search with
/// `errSecInteractionNotAllowed` (the engine cannot tell whether it matches), and a candidate that fails
/// authentication is skipped; when nothing else matches, its decode error is the answer.
struct ItemSearch {
    let keybag: Keybag
    let sealer: ItemSealer
    let store: ItemStore

    /// The class a query searches: its own, or its persistent reference's.
    static func itemClass(of query: ItemQuery) throws(EngineError) -> ItemClass {
        guard let itemClass = query.itemClass ?? query.persistentReference?.itemClass else {
            throw .param("the query names no item class (class)")
        }
        return itemClass
    }

    /// Runs a search for up to `limit` matches.
    func run(_ query: ItemQuery, for caller: Caller, withData: Bool, limit: Int) throws(EngineError) -> SearchResult {
        let itemClass = try Self.itemClass(of: query)
        try ItemValidator.check(query.attributes, for: itemClass)
        guard query.attributes[.synchronizable] == nil else {
            throw .param("the query's synchronizable attribute belongs in its synchronizable filter")
        }
        var result = SearchResult()
        if let reference = query.persistentReference, let queryClass = query.itemClass,
            queryClass != reference.itemClass
        {
            return result
        }
        let filter = try candidateFilter(for: query, itemClass: itemClass, caller: caller)
        try store.candidates(filter) { (row: StoredRow) throws(EngineError) -> Bool in
            let attributes: ItemAttributes
            let data: Data?
            do throws(EngineError) {
                (attributes, data) = try sealer.open(row.item, keybag: keybag, withData: withData)
            } catch  where error.code == .decode {
                if result.damaged == nil { result.damaged = error }
                result.damagedRowIDs.append(row.rowID)
                return true
            }
            guard let group = attributes.string(.accessGroup), caller.canAccess(group),
                query.matches(attributes, of: itemClass)
            else { return true }
            result.matches.append(ItemMatch(rowID: row.rowID, stored: row.item, attributes: attributes, data: data))
            return result.matches.count < limit
        }
        return result
    }

    private func candidateFilter(
        for query: ItemQuery, itemClass: ItemClass, caller: Caller
    ) throws(EngineError) -> CandidateFilter {
        let index = keybag.blindIndex
        var filter = CandidateFilter(itemClass: itemClass)
        filter.uuid = query.persistentReference?.uuidBytes
        switch query.synchronizable {
        case .localOnly: filter.synchronizable = false
        case .synchronizableOnly: filter.synchronizable = true
        case .any: filter.synchronizable = nil
        }
        filter.protectionClass = try ItemValidator.protectionClass(in: query.attributes)
        if let group = query.attributes.string(.accessGroup) {
            try caller.checkEntitlement(to: group)
            filter.groupHashes = [try index.group(group)]
        } else if let groups = caller.exactGroups {
            var hashes: [Data] = []
            for group in groups { hashes.append(try index.group(group)) }
            filter.groupHashes = hashes
        }
        if !query.caseInsensitive {
            for attribute in BlindIndex.indexedAttributes {
                if let text = query.attributes.string(attribute) {
                    filter.indexHashes.append((attribute, try index.attribute(attribute, text, itemClass: itemClass)))
                }
            }
        }
        return filter
    }
}
