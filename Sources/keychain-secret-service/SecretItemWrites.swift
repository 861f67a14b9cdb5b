import Foundation
import KeychainCore
import KeychainKeys

/// The writes of the Secret Service's `CreateItem` and of an item's `Attributes`, over the store's own.
///
/// The keychain keeps one generic password per service and account; the Secret Service keeps any number of items,
/// two of them possibly with the same map (without `replace`). So `CreateItem` with `replace` replaces the item whose
/// map is exactly the new one (or, failing that, the one stored under the same service and account), and without
/// `replace` adds a new item: one whose map names no service and account gets an account of its own when the map's
/// hash is taken; one that names them and whose service and account are taken is refused, saying why.
extension SecretItemStore {
    /// Stores an item as `CreateItem` does, returning it and whether it is new.
    func createItem(
        label: String, attributes: [String: String], secret: Data, contentType: String, replace: Bool
    ) throws(EngineError) -> (item: StoredSecret, isNew: Bool) {
        if replace, let same = try search(attributes).first(where: { $0.attributes == attributes }) {
            let changes = ItemChanges(
                attributes: [
                    .label: .string(label), .generic: .data(Self.encode(attributes, contentType: contentType)),
                ],
                data: secret)
            _ = try backend.update(query(same.reference), with: changes, for: caller)
            return (try item(same.reference), false)
        }
        do throws(EngineError) {
            let stored = try create(
                label: label, attributes: attributes, secret: secret, contentType: contentType, replace: replace)
            return (stored, stored.created == stored.modified)
        } catch  where error.code == .duplicateItem {
            let (service, account) = try Self.key(of: attributes)
            guard Self.namesServiceAndAccount(attributes) == false else {
                throw EngineError(
                    .duplicateItem,
                    "an item for service \"\(service)\" and account \"\(account)\" exists already (the keychain keeps "
                        + "one per service and account): create it with replace")
            }
            // Another item with the same map: this one is told apart by a random suffix of its account.
            let suffix = try RandomBytes.make(count: 8)
            let unique = account + "-" + suffix.hexText()
            let itemAttributes: ItemAttributes = [
                .service: .string(service), .account: .string(unique), .label: .string(label),
                .generic: .data(Self.encode(attributes, contentType: contentType)), .accessGroup: .string(try group),
                .searchTerms: Self.terms(of: attributes),
                .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
            ]
            let stored = try backend.add(
                NewItem(itemClass: .genericPassword, attributes: itemAttributes, data: secret), for: caller)
            return (try item(stored.persistentReference), true)
        }
    }

    /// Replaces an item's map (keeping its content type): its service and account follow the new map.
    func setAttributes(_ attributes: [String: String], of reference: PersistentReference) throws(EngineError) {
        let current = try item(reference)
        let (service, account) = try Self.key(of: attributes)
        let changes = ItemChanges(attributes: [
            .service: .string(service), .account: .string(account),
            .generic: .data(Self.encode(attributes, contentType: current.contentType)),
            .searchTerms: Self.terms(of: attributes),
        ])
        _ = try backend.update(query(reference), with: changes, for: caller)
    }

    /// Whether a map names both a service and an account (and so is stored under them).
    static func namesServiceAndAccount(_ attributes: [String: String]) -> Bool {
        serviceKeys.contains { attributes[$0] != nil } && accountKeys.contains { attributes[$0] != nil }
    }
}
