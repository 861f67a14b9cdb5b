import Foundation
import KeychainCore
import KeychainKeys
import KeychainPrompts

/// The four SecItem operations: each dictionary checked against the operation's rules (DESIGN §6, then Apple's
/// documented behaviour), turned into the engine's typed request, sent through the current keychain's backend, and
/// the answer shaped as Apple shapes it. Dictionaries are checked before the keychain is opened, so a malformed call
/// touches no file.
enum SecItemOperations {
    /// Adds an item; returns what the dictionary's `kSecReturn…` keys ask for.
    static func add(_ dictionary: NSDictionary) throws(EngineError) -> CFTypeRef? {
        try add([dictionary])
    }

    /// Adds the items of several dictionaries all or nothing (a generated key pair's two halves); returns what the
    /// first dictionary's `kSecReturn…` keys ask for.
    static func add(_ dictionaries: [NSDictionary]) throws(EngineError) -> CFTypeRef? {
        var requests: [SecItemDictionary] = []
        var toAdd: [(ItemClass, ItemAttributes, Data)] = []
        for dictionary in dictionaries {
            let request = try SecItemDictionary(adding: dictionary)
            toAdd += try SecItemCredentials.itemsToAdd(request)
            requests.append(request)
        }
        guard let request = requests.first else { return nil }
        let keychain = try SecItemKeychain.current()
        // iOS stores a synchronizable item with a ThisDeviceOnly accessibility (its server has no rule against it); it
        // stays on this device. An item with an application password asks for it when the context has none. An
        // identity's key and certificate are added together, all or nothing.
        let stored = try AuthenticationLoop.perform(request.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> [Item] in
            let newItems = toAdd.map { itemClass, attributes, data in
                NewItem(
                    itemClass: itemClass, attributes: attributes, data: data,
                    allowsThisDeviceOnlySynchronizable: true, authentication: authentication)
            }
            if newItems.count == 1 { return [try keychain.backend.add(newItems[0], for: keychain.caller)] }
            return try keychain.backend.add(newItems, for: keychain.caller)
        }
        // A key the keychain keeps to itself comes back as a handle, as a found one does.
        let items = stored.map { item in
            var item = item
            if item.itemClass == .key, item.attributes.bool(.isExtractable) == false { item.data = nil }
            return item
        }
        if request.isIdentity, items.count >= 2 {
            return try SecItemResult.object(
                for: [(items[1], items[0])], request: request, single: true, keychain: keychain)
        }
        return try SecItemResult.object(
            for: Array(items.prefix(1)), request: request, single: true, keychain: keychain)
    }

    /// Finds items; returns what the query's `kSecReturn…` keys ask for, one item or an array by the limit.
    static func copyMatching(_ dictionary: NSDictionary) throws(EngineError) -> CFTypeRef? {
        var request = try SecItemDictionary(dictionary)
        let query = try request.query(limit: request.limit, returning: SecItemResult.needs(of: request))
        let keychain = try SecItemKeychain.current()
        let single = (request.limit ?? .one) == .one
        if request.isIdentity {
            let identities = try AuthenticationLoop.perform(
                request.authenticationOptions, backend: keychain.backend
            ) { (authentication) throws(EngineError) -> [(certificate: Item, privateKey: Item)] in
                var query = query
                query.authentication = authentication
                return try SecItemCredentials.identities(
                    certificates: query, keyAttributes: request.identityKeyAttributes, backend: keychain.backend,
                    caller: keychain.caller)
            }
            return try SecItemResult.object(for: identities, request: request, single: single, keychain: keychain)
        }
        let items = try AuthenticationLoop.perform(request.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> [Item] in
            var query = query
            query.authentication = authentication
            return try keychain.backend.copyMatching(query, for: keychain.caller)
        }
        return try SecItemResult.object(for: items, request: request, single: single, keychain: keychain)
    }

    /// Changes every item the query matches.
    static func update(_ dictionary: NSDictionary, with changesDictionary: NSDictionary) throws(EngineError) {
        var request = try SecItemDictionary(dictionary)
        if let key = request.returnKeys.first {
            throw .init(.param, "SecItemUpdate returns nothing; its query cannot hold the return key \"\(key)\"")
        }
        try request.rejectMatchKeys(in: "SecItemUpdate")
        try request.rejectSkippingAuthentication(in: "SecItemUpdate")
        let query = try request.query(limit: nil, returning: [])
        let changes = try Self.changes(changesDictionary, itemClass: request.itemClass)
        let keychain = try SecItemKeychain.current()
        _ = try AuthenticationLoop.perform(request.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> Int in
            var query = query
            query.authentication = authentication
            return try keychain.backend.update(query, with: changes, for: keychain.caller)
        }
    }

    /// Deletes every item the query matches. `kSecMatchLimitAll` is accepted and changes nothing (macOS ignores a
    /// delete's limit and wrappers' macOS branches pass it; iOS refuses every limit); any other limit is refused.
    static func delete(_ dictionary: NSDictionary) throws(EngineError) {
        var request = try SecItemDictionary(dictionary)
        if request.limit != nil, request.limit != .all {
            throw .init(
                .param,
                "SecItemDelete deletes every match: its kSecMatchLimit (\"m_Limit\") may only be kSecMatchLimitAll")
        }
        request.matchKeys.removeAll { $0 == SecItemKeys.matchLimit }
        try request.rejectMatchKeys(in: "SecItemDelete")
        try request.rejectSkippingAuthentication(in: "SecItemDelete")
        let query = try request.query(limit: nil, returning: [])
        let keychain = try SecItemKeychain.current()
        guard request.isIdentity else {
            _ = try keychain.backend.delete(query, for: keychain.caller)
            return
        }
        // An identity is its certificate and its private key: deleting it deletes both, as on iOS.
        var joined = query
        joined.limit = .all
        let identities = try SecItemCredentials.identities(
            certificates: joined, keyAttributes: request.identityKeyAttributes, backend: keychain.backend,
            caller: keychain.caller)
        for (certificate, privateKey) in identities {
            for item in [certificate, privateKey] {
                let itemQuery = ItemQuery(
                    itemClass: item.itemClass, synchronizable: .any, persistentReference: item.persistentReference)
                _ = try keychain.backend.delete(itemQuery, for: keychain.caller)
            }
        }
    }

    /// Reads `attributesToUpdate`: attributes of the class and `kSecValueData` only; any other key is
    /// `errSecNoSuchAttr`, as on Apple's server.
    static func changes(_ dictionary: NSDictionary, itemClass: ItemClass) throws(EngineError) -> ItemChanges {
        // As in an add, a synchronizable ThisDeviceOnly item is accepted and stays on this device.
        var changes = ItemChanges(allowsThisDeviceOnlySynchronizable: true)
        var accessControl: SecAccessControl?
        for (key, value) in try SecItemDictionary.entries(of: dictionary) {
            if key == SecItemKeys.valueData {
                changes.data = try FoundationValue.requireData(value, for: key)
                continue
            }
            if key == SecItemKeys.persistentReferenceAttribute { continue }
            guard key.utf16.count == 4 else {
                throw .init(
                    .noSuchAttribute,
                    "attributesToUpdate holds \"\(key)\", which is not an attribute of class \(itemClass.rawValue): it takes only attributes and kSecValueData"
                )
            }
            switch try AttributeEntry(key, value, itemClass: itemClass) {
            case .ignored, .synchronizable(.any): break
            case .synchronizable(.flag(let flag)): changes.attributes[.synchronizable] = .bool(flag)
            case .accessControl(let control): accessControl = control
            case .attribute(let attribute, let attributeValue): changes.attributes[attribute] = attributeValue
            }
        }
        try accessControl?.apply(to: &changes.attributes, carryingConstraint: true)
        return changes
    }
}

extension SecItemDictionary {
    /// Reads an add's dictionary: no persistent reference, no match keys, no skipping authentication; the
    /// synchronizable flag and the access control moved into the attributes.
    init(adding dictionary: NSDictionary) throws(EngineError) {
        self = try SecItemDictionary(dictionary)
        guard persistentReference == nil else {
            throw .init(
                .param, "kSecValuePersistentRef (\"v_PersistentRef\") names an existing item; an add cannot take it")
        }
        try rejectMatchKeys(in: "SecItemAdd")
        try rejectSkippingAuthentication(in: "SecItemAdd")
        if case .flag(true) = synchronizable { attributes[.synchronizable] = .bool(true) }
        try applyAccessControl(carryingConstraint: true)
    }

    /// The engine query: the attributes, the synchronizable filter (local items unless the query says otherwise; both
    /// kinds for a persistent reference), and `kSecValueData` left out, as Apple leaves it out of a query.
    mutating func query(limit: MatchLimit?, returning: ReturnOptions) throws(EngineError) -> ItemQuery {
        try applyAccessControl(carryingConstraint: false)
        let filter: SynchronizableFilter
        switch synchronizable {
        case .flag(let flag): filter = SynchronizableFilter(flag)
        case .any: filter = .any
        case nil: filter = persistentReference == nil ? .localOnly : .any
        }
        if let reference {
            for (attribute, value) in try SecItemCredentials.attributes(identifying: reference) {
                attributes[attribute] = value
            }
        }
        // An issuer given as a whole DER name is compared as Apple compares it: by its normalized content, which a
        // certificate item stores.
        if case .data(let issuer)? = attributes[.issuer],
            let normalized = DistinguishedName.normalizedContent(of: issuer)
        {
            attributes[.issuer] = .data(normalized)
        }
        if persistentReference != nil {
            var keys = attributes.keys.map(\.rawValue)
            if case .flag = synchronizable { keys.append(SecItemKeys.synchronizable) }
            guard keys.isEmpty else {
                throw .init(
                    .param,
                    "a persistent reference (v_PersistentRef) names one item and cannot be combined with attributes (found \(keys.sorted().joined(separator: ", ")))"
                )
            }
        }
        return ItemQuery(
            itemClass: explicitClass, attributes: attributes, synchronizable: filter,
            persistentReference: persistentReference, limit: limit, returning: returning,
            caseInsensitive: caseInsensitive)
    }

    /// Moves an access control's protection class into `pdmn` and, for an add, its constraint into `accc`.
    mutating func applyAccessControl(carryingConstraint: Bool) throws(EngineError) {
        try accessControl?.apply(to: &attributes, carryingConstraint: carryingConstraint)
    }

    /// The authentication loop's options: the context (`kSecUseAuthenticationContext`), what may be asked
    /// (`kSecUseAuthenticationUI`) and the text shown (`kSecUseOperationPrompt`).
    var authenticationOptions: AuthenticationLoop.Options {
        let interaction: ItemAuthentication.Interaction
        switch authenticationUI {
        case .allow: interaction = .allowed
        case .fail: interaction = .notAllowed
        case .skip: interaction = .skipItems
        }
        return AuthenticationLoop.Options(
            context: authenticationContext, interaction: interaction, operationPrompt: operationPrompt)
    }

    /// Only `SecItemCopyMatching` takes `kSecMatch…` keys.
    func rejectMatchKeys(in function: String) throws(EngineError) {
        if let key = matchKeys.first {
            throw .init(.param, "\(function) takes no kSecMatch… keys; the dictionary holds \"\(key)\"")
        }
    }

    /// Only `SecItemCopyMatching` takes `kSecUseAuthenticationUISkip`.
    func rejectSkippingAuthentication(in function: String) throws(EngineError) {
        guard authenticationUI != .skip else {
            throw .init(
                .param,
                "kSecUseAuthenticationUISkip is allowed only for SecItemCopyMatching, not \(function)")
        }
    }
}
