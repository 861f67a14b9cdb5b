import Foundation

/// One item a search matched, with the row it came from.
struct ItemMatch {
    var rowID: Int64
    var uuid: UUID
    var itemClass: ItemClass
    var synchronizable: Bool
    /// The attributes, when the search opened them.
    var attributes: ItemAttributes?
    var data: Data?
    /// For an item with access control, when the search keeps it: what sealing it again needs.
    var sealing: AccessSealing?
}

/// What a search found: the matches, and the damaged rows it skipped.
struct SearchResult {
    var matches: [ItemMatch] = []
    /// The decode error of the first damaged row.
    var damaged: EngineError?
    /// The rows that failed authentication.
    var damagedRowIDs: [Int64] = []
    /// About how many bytes the matches take as a reply (``ItemValidator/replySize(of:data:)``).
    var byteCount = 0
}

/// What a search must open of each match.
struct SearchNeeds: OptionSet {
    let rawValue: Int
    static let attributes = SearchNeeds(rawValue: 1)
    static let data = SearchNeeds(rawValue: 2)
    /// What an update needs to seal an item with access control again (its item key and envelope).
    static let sealing = SearchNeeds(rawValue: 4)
    /// With ``sealing``: also open the data of items with access control (an update that writes new data needs
    /// their unlock secret); without it, ``data`` opens only the data of the others.
    static let constrainedData = SearchNeeds(rawValue: 8)
}

/// Finds the items a query matches for a caller: validates the query, narrows rows in SQL by clear columns and
/// blind indexes, then decrypts each candidate and decides exactly.
///
/// A query that names its class's whole primary key (and nothing else that needs decrypting) is answered by the
/// primary-key hash alone: one indexed row, whose secret's associated data authenticates that hash, and whose
/// attributes are opened only when asked for.
///
/// As on Apple's platforms, a candidate in a class that is locked fails the whole search with
/// `errSecInteractionNotAllowed` (the engine cannot tell whether it matches), and a candidate that fails
/// authentication is skipped; when nothing else matches, its decode error is the answer.
///
/// An exact lookup that matches nothing asks the change log too (in the same read transaction): when the log's
/// latest record of an item with that primary key says it exists, its row is missing or damaged, and the answer is
/// `errSecDecode` naming that item, never "not found".
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

    /// Runs a search for up to `limit` matches. With `byteLimit`, matches that would take more bytes as a reply
    /// are refused (errSecDataTooLarge naming the limit) as soon as they do, before more of them are opened.
    func run(
        _ query: ItemQuery, for caller: Caller, needs: SearchNeeds, limit: Int, release: FactorRelease? = nil,
        byteLimit: Int? = nil
    ) throws(EngineError) -> SearchResult {
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
        let byPrimaryKey = filter.primaryKeyHashes != nil
        let opensAttributes = needs.contains(.attributes) || !byPrimaryKey
        // A row found by its primary-key hash matches by that hash; any other by its attributes.
        func matches(_ attributes: ItemAttributes) -> Bool {
            guard !byPrimaryKey else { return true }
            guard let group = attributes.string(.accessGroup), caller.canAccess(group) else { return false }
            return query.matches(attributes, of: itemClass)
        }
        // Rows of the key that answered for themselves (left out by `kSecUseAuthenticationUISkip`).
        var answered: Set<Data> = []
        /// Opens one candidate row and keeps it when it matches; `false` when the search has enough.
        func consider(_ row: StoredRow) throws(EngineError) -> Bool {
            let attributes: ItemAttributes?
            let data: Data?
            var sealing: AccessSealing?
            do throws(EngineError) {
                if byPrimaryKey {
                    try Self.checkExact(row, filter)
                    if let protectionClass = filter.protectionClass, row.protectionClass != protectionClass {
                        return true
                    }
                }
                if row.accessFlags != 0 {
                    let opensData = needs.contains(.sealing) ? needs.contains(.constrainedData) : needs.contains(.data)
                    guard
                        let opening = try sealer.openConstrained(
                            row, keybag: keybag, data: opensData, keepsSealing: needs.contains(.sealing),
                            release: release, where: matches)
                    else { return true }
                    guard !opening.isSkipped else {
                        answered.insert(PersistentReference.bytes(of: row.uuid))
                        return true
                    }
                    (attributes, data, sealing) = (opening.attributes, opening.data, opening.sealing)
                } else {
                    (attributes, data) = try sealer.open(
                        row, keybag: keybag, attributes: opensAttributes, data: needs.contains(.data))
                }
            } catch  where error.code == .decode {
                if result.damaged == nil { result.damaged = error }
                result.damagedRowIDs.append(row.rowID)
                return true
            }
            // A row with access control was matched as it opened.
            if row.accessFlags == 0, let attributes, !matches(attributes) { return true }
            if let byteLimit {
                result.byteCount += ItemValidator.replySize(of: attributes, data: data)
                guard result.byteCount <= byteLimit else {
                    throw EngineError(
                        .dataTooLarge,
                        "the \(result.matches.count + 1) items matched so far take more than \(byteLimit) bytes, "
                            + "the most one reply carries: ask for fewer items at a time, or for their attributes alone"
                    )
                }
            }
            result.matches.append(
                ItemMatch(
                    rowID: row.rowID, uuid: row.uuid, itemClass: row.itemClass, synchronizable: row.synchronizable,
                    attributes: attributes, data: data, sealing: sealing))
            return result.matches.count < limit
        }
        do throws(EngineError) {
            try store.candidates(filter) { (row: StoredRow) throws(EngineError) -> Bool in try consider(row) }
        } catch {
            // A row whose clear columns cannot be read at all: for an exact lookup the log names the item below.
            guard byPrimaryKey, error.code == .decode else { throw error }
            result.damaged = error
        }
        if byPrimaryKey, result.matches.isEmpty {
            guard store.database.isInTransaction else {
                // Again, with the rows and the log in one snapshot: another process's add between the two reads must
                // not look like a missing row. Only a miss pays for it.
                return try store.database.readTransaction { () throws(EngineError) -> SearchResult in
                    try run(query, for: caller, needs: needs, limit: limit, release: release)
                }
            }
            try checkLog(filter, excluding: answered, into: &result)
        }
        return result
    }

    /// A row an exact lookup found by primary-key hash has that hash, and the class and synchronizable flag the
    /// hash was made from; anything else is damage (to the row or to the index), reported for that item.
    private static func checkExact(_ row: StoredRow, _ filter: CandidateFilter) throws(EngineError) {
        let hashes = filter.primaryKeyHashes ?? []
        let hashMatches = hashes.contains { hash in
            hash.withUnsafeBytes { $0.elementsEqual(row.primaryKeyHash) }
        }
        guard hashMatches, row.itemClass == filter.itemClass, row.synchronizable == filter.synchronizable,
            !row.isTombstone
        else {
            throw .decode(
                "the stored item \(row.persistentReference) has clear columns that do not match its primary key: the "
                    + "database was damaged")
        }
    }

    /// After an exact lookup matched nothing: when the change log says an item with the key exists (its latest
    /// record is an add or an update carrying one of the key's hashes, of the query's protection class), its row is
    /// missing or damaged, and the result becomes `errSecDecode` naming the item as the log knows it (its class from
    /// the log: a row's own class column may be the damage). The rows in `answered` are fine.
    private func checkLog(
        _ filter: CandidateFilter, excluding answered: Set<Data>, into result: inout SearchResult
    ) throws(EngineError) {
        guard
            let record = try store.changeLog.existingItem(
                withPrimaryKeyIn: filter.primaryKeyHashes ?? [], protectionClass: filter.protectionClass,
                excluding: answered)
        else { return }
        let item = record.persistentReference.map { "\($0)" } ?? "of change \(record.sequence)"
        if let damaged = result.damaged, damaged.message.contains(item) { return }
        let found = result.damaged.map { ": \($0.message)" } ?? ": no intact row answers its primary key"
        result.damaged = .decode(
            "the stored item \(item) is missing or damaged (its change \(record.sequence) says it exists)\(found); the "
                + "database was altered or damaged (`security verify-keychain` lists it)")
    }

    private func candidateFilter(
        for query: ItemQuery, itemClass: ItemClass, caller: Caller
    ) throws(EngineError) -> CandidateFilter {
        let index = keybag.blindIndex
        var filter = CandidateFilter(itemClass: itemClass)
        filter.uuid = query.persistentReference?.uuidBytes
        if let cursor = query.startingAfter {
            guard cursor.itemClass == itemClass, let rowID = try store.rowID(ofUUID: cursor.uuidBytes) else {
                throw .param(
                    "the item a page starts after, \(cursor), is not a stored \(itemClass.rawValue) item (deleted "
                        + "since the page before?): start the listing again")
            }
            filter.afterRowID = rowID
        }
        switch query.synchronizable {
        case .localOnly: filter.synchronizable = false
        case .synchronizableOnly: filter.synchronizable = true
        case .any: filter.synchronizable = nil
        }
        filter.protectionClass = try ItemValidator.protectionClass(in: query.attributes)
        let groups: [String]?
        if let group = query.attributes.string(.accessGroup) {
            try caller.checkEntitlement(to: group)
            groups = [group]
        } else {
            groups = caller.exactGroups
        }
        if let groups, let synchronizable = filter.synchronizable, names(wholePrimaryKeyOf: itemClass, in: query) {
            var hashes: [Data] = []
            for group in groups {
                hashes.append(
                    try index.primaryKey(
                        itemClass: itemClass, accessGroup: group, synchronizable: synchronizable,
                        attributes: query.attributes))
            }
            filter.primaryKeyHashes = hashes
            return filter
        }
        if let groups { filter.groupHashes = try index.groups(groups) }
        if !query.caseInsensitive {
            // In BlindIndex.indexedAttributes order: the cached SQL of a filter's shape relies on it.
            for attribute in BlindIndex.indexedAttributes {
                if let value = query.attributes[attribute] {
                    filter.indexHashes.append((attribute, try index.attribute(attribute, value, itemClass: itemClass)))
                }
            }
            if let terms = query.attributes[.searchTerms] {
                filter.termHashes = try SearchTerms.terms(in: terms).map { (term) throws(EngineError) in
                    try index.term(term)
                }
            }
        }
        return filter
    }

    /// Whether the query names every primary-key attribute exactly and nothing else that needs decrypting
    /// (the access group and the protection class are decided by the hash and a clear column).
    private func names(wholePrimaryKeyOf itemClass: ItemClass, in query: ItemQuery) -> Bool {
        guard !query.caseInsensitive, query.persistentReference == nil else { return false }
        let keyed = itemClass.primaryKey
        for (key, _) in query.attributes where !keyed.contains(key) && key != .accessGroup && key != .accessible {
            return false
        }
        return keyed.allSatisfy { query.attributes[$0] != nil }
    }
}
