import Foundation
import Keychain
import Security

/// Finding items for the verbs, asking for the passcode on the terminal when the keychain is locked.
enum ItemLookup {
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

    /// Hands the first item the criteria match to `body`, looking in each keychain in turn, as macOS's tool
    /// searches its list; `body` returns `false` when the item vanished meanwhile (another process removed it), and
    /// the search goes on. Throws `errSecItemNotFound` (exit status 44) when no keychain has a match.
    static func withFirst<Item: PasswordItem>(
        _ criteria: ItemCriteria<Item>, in locations: [KeychainLocation], _ session: ToolSession,
        _ body: (Item, KeychainLocation) throws(ToolFailure) -> Bool
    ) throws(ToolFailure) {
        for location in locations {
            guard let found = try all(criteria, in: location, session).first else { continue }
            if try body(found, location) { return }
        }
        throw .status(errSecItemNotFound, "SecKeychainSearchCopyNext")
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
