import Foundation
import KeychainCore
import KeychainPrompts

/// The four SecItem operations: each dictionary checked against the operation's rules (DESIGN §6, then Apple's
/// documented behaviour), turned into the engine's typed request, sent through the current keychain's backend, and
/// the answer shaped as Apple shapes it. Dictionaries are checked before the keychain is opened, so a malformed call
/// touches no file.
enum SecItemOperations {
    /// Adds an item; returns what the dictionary's `kSecReturn…` keys ask for.
    static func add(_ dictionary: NSDictionary) throws(EngineError) -> CFTypeRef? {
        var request = try SecItemDictionary(dictionary)
        guard request.persistentReference == nil else {
            throw .init(
                .param, "kSecValuePersistentRef (\"v_PersistentRef\") names an existing item; an add cannot take it")
        }
        try request.rejectMatchKeys(in: "SecItemAdd")
        try request.rejectSkippingAuthentication(in: "SecItemAdd")
        if case .flag(true) = request.synchronizable { request.attributes[.synchronizable] = .bool(true) }
        try request.applyAccessControl(carryingConstraint: true)
        let keychain = try SecItemKeychain.current()
        // iOS stores a synchronizable item with a ThisDeviceOnly accessibility (its server has no rule against it); it
        // stays on this device. An item with an application password asks for it when the context has none.
        let item = try AuthenticationLoop.perform(request.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> Item in
            try keychain.backend.add(
                NewItem(
                    itemClass: request.itemClass, attributes: request.attributes, data: request.data ?? Data(),
                    allowsThisDeviceOnlySynchronizable: true, authentication: authentication),
                for: keychain.caller)
        }
        return SecItemResult.object(for: [item], request: request, single: true)
    }

    /// Finds items; returns what the query's `kSecReturn…` keys ask for, one item or an array by the limit.
    static func copyMatching(_ dictionary: NSDictionary) throws(EngineError) -> CFTypeRef? {
        var request = try SecItemDictionary(dictionary)
        let query = try request.query(limit: request.limit, returning: SecItemResult.needs(of: request))
        let keychain = try SecItemKeychain.current()
        let items = try AuthenticationLoop.perform(request.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> [Item] in
            var query = query
            query.authentication = authentication
            return try keychain.backend.copyMatching(query, for: keychain.caller)
        }
        return SecItemResult.object(for: items, request: request, single: (request.limit ?? .one) == .one)
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
        _ = try keychain.backend.delete(query, for: keychain.caller)
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
