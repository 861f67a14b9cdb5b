import Foundation
import Keychain

/// Finding items for the verbs, asking for the passcode on the terminal when the keychain is locked.
enum ItemSearch {
    /// Every item of a class the criteria match in a keychain, in a stable order.
    static func all<Item: PasswordItem>(
        _ criteria: ItemCriteria<Item>, in location: KeychainLocation, _ session: ToolSession
    ) throws(ToolFailure) -> [Item] {
        let context = "SecKeychainSearchCopyNext"
        let keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            return try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) -> [Item] in
                try Item.items(matching: criteria.query, in: keychain).filter(criteria.matches)
                    .sorted { $0.listingOrder.lexicographicallyPrecedes($1.listingOrder) }
            }
        } catch {
            throw .keychain(error, context)
        }
    }

    /// The first item the criteria match in a keychain, or `nil`.
    static func first<Item: PasswordItem>(
        _ criteria: ItemCriteria<Item>, in location: KeychainLocation, _ session: ToolSession
    ) throws(ToolFailure) -> Item? {
        try all(criteria, in: location, session).first
    }

    /// An item's secret, or `nil` when the item is gone.
    static func secret<Item: PasswordItem>(
        of item: Item, in location: KeychainLocation, _ session: ToolSession
    ) throws(ToolFailure) -> Data? {
        let context = "SecKeychainItemCopyContent"
        let keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            return try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) -> Data? in
                try item.secret(in: keychain)
            }
        } catch {
            throw .keychain(error, context)
        }
    }
}
