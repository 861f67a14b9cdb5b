import Foundation
import KeychainCore
import KeychainKeys

/// Secret Service items as keychain items: generic passwords in the collection's access group. The attribute map and
/// the content type are sealed with the item (in its `gena`); a map that names a service and an account (python
/// keyring's `service` and `username`, libsecret's `service` and `user` or `account`) becomes the item's service
/// and account, so `security find-generic-password -s SERVICE -a ACCOUNT` finds it, and so does a search by those,
/// through the keychain's blind indexes. Any other map is keyed by a hash of the whole map.
struct SecretItemStore {
    /// The identity of the caller being answered: every read and write is the caller's, behind keychaind's wall.
    let identities: CallerIdentities
    /// The collection's access group; `nil` for the collection `login`, the caller's own group.
    var collectionGroup: String?

    init(identities: CallerIdentities, collectionGroup: String? = nil) {
        self.identities = identities
        self.collectionGroup = collectionGroup
    }

    /// The backend of the call being answered.
    var backend: any KeychainBackend {
        get throws(EngineError) { try identities.current().backend }
    }

    /// The caller of the call being answered, narrowed to the collection's group when this is another collection's
    /// store (keychaind decides a caller's groups itself: there the narrowing is the queries' group).
    var caller: Caller {
        get throws(EngineError) { narrowed(try identities.current().caller) }
    }

    private func narrowed(_ caller: Caller) -> Caller {
        guard let collectionGroup else { return caller }
        return Caller(applicationIdentifier: caller.applicationIdentifier, accessGroups: [collectionGroup])
    }

    /// The collection's access group.
    var group: String {
        get throws(EngineError) {
            if let collectionGroup { return collectionGroup }
            return try identities.current().caller.defaultGroup
        }
    }

    /// One stored Secret Service item.
    struct StoredSecret {
        var reference: PersistentReference
        var label: String
        var attributes: [String: String]
        var contentType: String
        var created: Date
        var modified: Date
    }

    static let serviceKeys = ["service"]
    static let accountKeys = ["username", "user", "account"]

    /// The service and account an attribute map is stored under.
    static func key(of attributes: [String: String]) throws(EngineError) -> (service: String, account: String) {
        let service = serviceKeys.compactMap { attributes[$0] }.first
        let account = accountKeys.compactMap { attributes[$0] }.first
        if let service, let account { return (service, account) }
        let digest = try Digest.sha256.hash(encode(attributes, contentType: ""))
        return (service ?? "secret-service", account ?? digest.hexText())
    }

    /// The search terms of an attribute map: one per name and value (the name, a NUL, the value).
    static func terms(of attributes: [String: String]) -> AttributeValue {
        SearchTerms.value(attributes.map { "\($0.key)\u{0}\($0.value)" })
    }

    /// The attribute map and content type as the sealed `gena`: `ss1`, then length-prefixed keys and values, sorted.
    static func encode(_ attributes: [String: String], contentType: String) -> Data {
        var bytes: [UInt8] = Array("ss1".utf8)
        bytes.appendLengthPrefixedUTF8(contentType)
        bytes.appendLittleEndian(UInt32(attributes.count))
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            bytes.appendLengthPrefixedUTF8(key)
            bytes.appendLengthPrefixedUTF8(value)
        }
        return Data(bytes)
    }

    static func decode(_ data: Data) -> (attributes: [String: String], contentType: String)? {
        let bytes = [UInt8](data)
        guard bytes.count >= 3, Array(bytes.prefix(3)) == Array("ss1".utf8) else { return nil }
        var reader = ByteReader(bytes, range: 3..<bytes.count)
        func text() throws(EngineError) -> String {
            String(decoding: try reader.lengthPrefixed(), as: UTF8.self)
        }
        do throws(EngineError) {
            let contentType = try text()
            let count: UInt32 = try reader.littleEndian()
            var attributes: [String: String] = [:]
            for _ in 0..<count {
                let key = try text()
                attributes[key] = try text()
            }
            return (attributes, contentType)
        } catch {
            return nil
        }
    }

    /// Stores an item (over the one with the same map when `replace`), returning it.
    func create(
        label: String, attributes: [String: String], secret: Data, contentType: String, replace: Bool
    ) throws(EngineError) -> StoredSecret {
        let (service, account) = try Self.key(of: attributes)
        let (backend, caller) = try identity()
        let itemAttributes: ItemAttributes = [
            .service: .string(service), .account: .string(account), .label: .string(label),
            .generic: .data(Self.encode(attributes, contentType: contentType)),
            .accessGroup: .string(try group), .searchTerms: Self.terms(of: attributes),
            .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
        ]
        let item = NewItem(itemClass: .genericPassword, attributes: itemAttributes, data: secret)
        let stored = try replace ? backend.addOrUpdate(item, for: caller) : backend.add(item, for: caller)
        return try Self.secret(from: stored)
    }

    /// The items whose map holds every pair of `query`.
    func search(_ query: [String: String]) throws(EngineError) -> [StoredSecret] {
        let (backend, caller) = try identity()
        // The collection's group: `login` is the caller's own.
        var attributes: ItemAttributes = [.accessGroup: .string(try group)]
        // A service and an account narrow the search through the blind indexes.
        if let service = Self.serviceKeys.compactMap({ query[$0] }).first { attributes[.service] = .string(service) }
        if let account = Self.accountKeys.compactMap({ query[$0] }).first { attributes[.account] = .string(account) }
        // Any other attribute narrows the search through the items' term indexes: only the items holding every
        // pair are opened. (A password stored by another program has no terms, and no attribute but its service
        // and account to match.)
        if query.keys.contains(where: { !Self.serviceKeys.contains($0) && !Self.accountKeys.contains($0) }) {
            attributes[.searchTerms] = Self.terms(of: query)
        }
        let itemQuery = ItemQuery(
            itemClass: .genericPassword, attributes: attributes, synchronizable: .any, limit: .all,
            returning: [.attributes])
        let items: [Item]
        do throws(EngineError) {
            items = try backend.copyMatching(itemQuery, for: caller)
        } catch  where error.code == .itemNotFound {
            return []
        }
        // Records of collections and aliases carry a gena that is no map: never listed.
        return items.compactMap { try? Self.secret(from: $0) }.filter { stored in
            query.allSatisfy { stored.attributes[$0.key] == $0.value }
        }
    }

    /// Every item of the collection.
    func all() throws(EngineError) -> [StoredSecret] { try search([:]) }

    /// The item a reference names.
    func item(_ reference: PersistentReference) throws(EngineError) -> StoredSecret {
        try Self.secret(from: try read(reference, returning: [.attributes]))
    }

    /// The secret of an item.
    func secret(of reference: PersistentReference) throws(EngineError) -> (value: Data, contentType: String) {
        let item = try read(reference, returning: [.attributes, .data])
        let stored = try Self.secret(from: item)
        return (item.data ?? Data(), stored.contentType)
    }

    func setSecret(_ secret: Data, of reference: PersistentReference) throws(EngineError) {
        let (backend, caller) = try identity()
        _ = try backend.update(query(reference), with: ItemChanges(data: secret), for: caller)
    }

    func setLabel(_ label: String, of reference: PersistentReference) throws(EngineError) {
        let (backend, caller) = try identity()
        _ = try backend.update(query(reference), with: ItemChanges(attributes: [.label: .string(label)]), for: caller)
    }

    func delete(_ reference: PersistentReference) throws(EngineError) {
        let (backend, caller) = try identity()
        _ = try backend.delete(query(reference), for: caller)
    }

    /// The backend and caller of the call being answered.
    private func identity() throws(EngineError) -> (any KeychainBackend, Caller) {
        let identity = try identities.current()
        return (identity.backend, narrowed(identity.caller))
    }

    /// The query that names one item of the store by its persistent reference.
    func query(_ reference: PersistentReference) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, synchronizable: .any, persistentReference: reference)
    }

    private func read(_ reference: PersistentReference, returning: ReturnOptions) throws(EngineError) -> Item {
        let (backend, caller) = try identity()
        var query = query(reference)
        query.returning = returning
        guard let item = try backend.copyMatching(query, for: caller).first else {
            throw EngineError(.itemNotFound, "no such item")
        }
        return item
    }

    /// An item as the Secret Service shows it: its sealed map, or — for a password stored by another program (a
    /// Swift app, the `security` tool) — `service` and `username` from its service and account, as python keyring
    /// names them, so the same secret is found both ways.
    private static func secret(from item: Item) throws(EngineError) -> StoredSecret {
        // A generic password without a map (the security tool's, a Swift app's) is the map of its service and account.
        var (map, contentType) = (
            ["service": item.attributes.string(.service) ?? "", "username": item.attributes.string(.account) ?? ""],
            "text/plain"
        )
        if case .data(let generic) = item.attributes[.generic] {
            guard let decoded = decode(generic) else { throw EngineError(.decode, "not a Secret Service item") }
            (map, contentType) = decoded
        }
        var created = Date(timeIntervalSince1970: 0)
        var modified = created
        if case .date(let date) = item.attributes[.creationDate] { created = date }
        if case .date(let date) = item.attributes[.modificationDate] { modified = date }
        return StoredSecret(
            reference: item.persistentReference, label: item.attributes.string(.label) ?? "", attributes: map,
            contentType: contentType, created: created, modified: modified)
    }
}
