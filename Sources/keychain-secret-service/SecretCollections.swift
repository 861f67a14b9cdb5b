import Foundation
import KeychainCore
import KeychainKeys

/// The Secret Service's collections and aliases, kept in the keychain itself.
///
/// A collection is an access group of the keychain: its items live in the group named like the collection (a name of
/// letters, digits and `_`, so never a reverse-DNS group of an app). What a group alone cannot say (that an empty
/// collection exists, its label, its date) is a record in the service's own group (`login`): a generic password of
/// service `org.freedesktop.Secret.Collection` whose account is the collection's name and whose label is its label.
/// An alias is another such record, of service `org.freedesktop.Secret.Alias`, whose data is the collection's name.
/// Both kinds carry a `gena` that is not a Secret Service map, so no search of the `login` collection ever lists one.
///
/// Behind keychaind's wall a caller reaches only the groups keychaind gives it, so there its collections are those
/// groups: `login` is its own (default) group, and each other group it is entitled to is a collection named
/// ``collectionName(ofGroup:)`` (`G`, then the group's name with every byte but an ASCII letter or a digit
/// written `_XX`: a D-Bus path element, never one of the lowercase names a collection of an embedded keychain has).
/// A new collection would need a group keychaind does not give, so it is refused, saying how to get one.
extension SecretItemStore {
    static let collectionRecord = "org.freedesktop.Secret.Collection"
    static let aliasRecord = "org.freedesktop.Secret.Alias"
    /// The collection that always exists: the service's own group.
    static let loginCollection = "login"
    /// The `gena` of a collection's or an alias's record: not a map, so never listed as an item.
    static let recordMark = Data("ss-record".utf8)

    /// One collection: its name (its access group), label and creation date.
    struct Collection {
        var name: String
        var label: String
        var created: Date
    }

    /// The store of the collection `name`: the same keychain, the caller entitled to that group alone.
    func collection(_ name: String) -> SecretItemStore {
        SecretItemStore(
            identities: identities, collectionGroup: name == Self.loginCollection ? nil : Self.group(of: name))
    }

    /// Every collection: `login`, then the others by name — the created ones, or behind keychaind's wall the
    /// caller's other groups.
    func collections() throws(EngineError) -> [Collection] {
        var found: [String: Collection] = [:]
        let epoch = Date(timeIntervalSince1970: 0)
        if identities.isWalled {
            let caller = try identities.current().caller
            for group in caller.accessGroups where group != caller.defaultGroup {
                let name = Self.collectionName(ofGroup: group)
                found[name] = Collection(name: name, label: group, created: epoch)
            }
        }
        for item in try records(Self.collectionRecord) {
            guard let name = item.attributes.string(.account) else { continue }
            // Behind the wall a record only relabels one of the caller's groups (or `login`).
            guard !identities.isWalled || found[name] != nil || name == Self.loginCollection else { continue }
            var created = found[name]?.created ?? epoch
            if !identities.isWalled, case .date(let date) = item.attributes[.creationDate] { created = date }
            found[name] = Collection(name: name, label: item.attributes.string(.label) ?? name, created: created)
        }
        let login =
            found.removeValue(forKey: Self.loginCollection)
            ?? Collection(name: Self.loginCollection, label: "Login", created: epoch)
        return [login] + found.values.sorted { $0.name < $1.name }
    }

    /// Records a new collection labeled `label`, named after it (its letters and digits, lowercased; a number
    /// added when the name is taken), and returns it.
    func createCollection(label: String) throws(EngineError) -> Collection {
        if identities.isWalled {
            let caller = try identities.current().caller
            throw EngineError(
                .missingEntitlement,
                "through keychaind a program's collections are the access groups it is entitled to (login is "
                    + "\(caller.defaultGroup)\(caller.accessGroups.count > 1 ? ", and \(caller.accessGroups.count - 1) more" : "")), "
                    + "and keychaind gives this one no group for a collection \"\(label)\": register the program "
                    + "with another keychain-access-groups entry (security register-app) to have one more")
        }
        let existing = Set(try collections().map(\.name))
        var base = String(label.lowercased().unicodeScalars.map { Self.isNameCharacter($0) ? Character($0) : "_" })
        if base.isEmpty { base = "collection" }
        var name = base
        var number = 1
        while existing.contains(name) {
            number += 1
            name = "\(base)\(number)"
        }
        try writeRecord(Self.collectionRecord, name, label: label, data: Data())
        return try collections().first { $0.name == name } ?? Collection(name: name, label: label, created: Date())
    }

    /// Relabels a collection (`login` included).
    func setCollectionLabel(_ label: String, of name: String) throws(EngineError) {
        try writeRecord(Self.collectionRecord, name, label: label, data: Data())
    }

    /// Deletes a created collection: its items, its record and the aliases that name it.
    func deleteCollection(_ name: String) throws(EngineError) {
        guard name != Self.loginCollection else {
            throw EngineError(.param, "the collection login is the keychain's own group and cannot be deleted")
        }
        guard !identities.isWalled else {
            throw EngineError(
                .param,
                "the collection \(name) is the access group \(Self.group(of: name)), which keychaind gives this "
                    + "program: it cannot be deleted (delete its items)")
        }
        let items = ItemQuery(
            itemClass: .genericPassword, attributes: [.accessGroup: .string(name)], synchronizable: .any)
        do throws(EngineError) {
            _ = try backend.delete(items, for: collection(name).caller)
        } catch  where error.code == .itemNotFound {}
        try deleteRecord(Self.collectionRecord, name)
        for (alias, target) in try aliases() where target == name { try deleteRecord(Self.aliasRecord, alias) }
    }

    /// The aliases and the collection each names; `default` is `login` unless set otherwise.
    func aliases() throws(EngineError) -> [String: String] {
        var result = ["default": Self.loginCollection]
        for item in try records(Self.aliasRecord, data: true) {
            guard let alias = item.attributes.string(.account), let data = item.data else { continue }
            result[alias] = String(decoding: data, as: UTF8.self)
        }
        return result.filter { !$0.value.isEmpty }
    }

    /// Points `alias` at a collection, or removes it (`nil`; `default` then falls back to `login`).
    func setAlias(_ alias: String, to name: String?) throws(EngineError) {
        guard let name else {
            // `default` removed is recorded as empty, so it does not fall back to login.
            if alias == "default" { return try writeRecord(Self.aliasRecord, alias, label: alias, data: Data()) }
            return try deleteRecord(Self.aliasRecord, alias)
        }
        try writeRecord(Self.aliasRecord, alias, label: alias, data: Data(name.utf8))
    }

    /// Whether `name` can be a collection's name: lowercase letters, digits and `_` (a D-Bus path element), or a
    /// group's name as ``collectionName(ofGroup:)`` writes it.
    static func isCollectionName(_ name: String) -> Bool {
        isAliasName(name) || groupName(decoding: name) != nil
    }

    /// Whether `name` can be an alias's name (or a created collection's): lowercase letters, digits and `_`.
    static func isAliasName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(isNameCharacter)
    }

    /// The collection of access group `group` behind keychaind's wall: `G`, then each byte of the group's name,
    /// an ASCII letter or a digit as it is, any other as `_` and two uppercase hex digits.
    static func collectionName(ofGroup group: String) -> String {
        var name = "G"
        for byte in group.utf8 {
            if isPlainByte(byte) {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += "_" + [byte].hexText(uppercase: true)
            }
        }
        return name
    }

    /// A byte a collection's name holds as it is: an ASCII letter or digit.
    private static func isPlainByte(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x41...0x5a).contains(byte) || (0x30...0x39).contains(byte)
    }

    /// The access group a collection's name stands for: the group a `G` name encodes, or the name itself.
    static func group(of name: String) -> String {
        groupName(decoding: name) ?? name
    }

    /// The group ``collectionName(ofGroup:)`` wrote as `name`, or `nil` when `name` is not one it writes.
    private static func groupName(decoding name: String) -> String? {
        let characters = Array(name.utf8)
        guard characters.first == UInt8(ascii: "G"), characters.count > 1 else { return nil }
        var bytes: [UInt8] = []
        var index = 1
        while index < characters.count {
            let character = characters[index]
            if isPlainByte(character) {
                bytes.append(character)
                index += 1
                continue
            }
            guard character == UInt8(ascii: "_"), index + 2 < characters.count,
                let high = UInt8(hexDigit: characters[index + 1]), let low = UInt8(hexDigit: characters[index + 2]),
                case let byte = high << 4 | low,
                [byte].hexText(uppercase: true).utf8.elementsEqual(characters[index + 1...index + 2]),
                !isPlainByte(byte)
            else { return nil }
            bytes.append(byte)
            index += 3
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar == "_" || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar))
    }

    // MARK: Records

    private func records(_ kind: String, data: Bool = false) throws(EngineError) -> [Item] {
        let group = try group
        return try identities.records("\(group)\u{0}\(kind)\u{0}\(data)") { () throws(EngineError) in
            let query = ItemQuery(
                itemClass: .genericPassword, attributes: [.accessGroup: .string(group), .service: .string(kind)],
                synchronizable: .any, limit: .all, returning: data ? [.attributes, .data] : [.attributes])
            do throws(EngineError) {
                return try backend.copyMatching(query, for: caller)
            } catch  where error.code == .itemNotFound {
                return []
            }
        }
    }

    private func writeRecord(_ kind: String, _ account: String, label: String, data: Data) throws(EngineError) {
        let attributes: ItemAttributes = [
            .service: .string(kind), .account: .string(account), .label: .string(label),
            .accessGroup: .string(try group), .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
            .generic: .data(Self.recordMark),
        ]
        defer { identities.forgetRecords() }
        let stored = try backend.addOrUpdate(
            NewItem(itemClass: .genericPassword, attributes: attributes, data: data), for: caller)
        let path = SecretService.path(of: stored.persistentReference)
        for member in ["ItemCreated", "ItemChanged"] { identities.recordWritten?(member, path) }
    }

    private func deleteRecord(_ kind: String, _ account: String) throws(EngineError) {
        let query = ItemQuery(
            itemClass: .genericPassword,
            attributes: [.accessGroup: .string(try group), .service: .string(kind), .account: .string(account)],
            synchronizable: .any)
        defer { identities.forgetRecords() }
        for record in try records(kind) where record.attributes.string(.account) == account {
            identities.recordWritten?("ItemDeleted", SecretService.path(of: record.persistentReference))
        }
        do throws(EngineError) {
            _ = try backend.delete(query, for: caller)
        } catch  where error.code == .itemNotFound {}
    }
}
