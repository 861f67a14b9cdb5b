import Foundation
import Keychain
import Security

/// Finding items for the verbs, asking for the passcode on the terminal when the keychain is locked.
enum ItemLookup {
    /// Every item of a class the criteria match in a keychain, in a stable order.
    static func all<Item: PasswordItem>(
        _ criteria: ItemCriteria<Item>, in location: KeychainLocation, _ session: ToolSession
    ) throws(ToolFailure) -> [Item] {
        try reading(location, session, context: searchContext) { (keychain) throws(KeychainError) -> [Item] in
            try Item.items(matching: criteria.query, in: keychain).sorted(by: listsBefore)
        }
    }

    /// The first item the criteria match, looking in each keychain in turn, with its secret: read together in
    /// one request per keychain (through keychaind, one round trip instead of two) when the keychain holds one
    /// candidate. `nil` when an item that needs the user's authentication is among the candidates, or when there
    /// are several (the first is chosen by its attributes, and only its secret is read: four 16 MiB secrets would
    /// not fit one reply of keychaind's): ``withFirst(_:in:_:_:)`` and ``secret(of:in:_:)`` then read it.
    /// Throws `errSecItemNotFound` (exit status 44) when no keychain has a match.
    static func firstWithSecret<Item: PasswordItem>(
        _ criteria: ItemCriteria<Item>, in locations: [KeychainLocation], _ session: ToolSession
    ) throws(ToolFailure) -> (item: Item, secret: Data, location: KeychainLocation)? {
        for location in locations {
            // Two at most: one is the answer; two say there are several, whose secrets are not all needed.
            let listed = try reading(location, session, context: searchContext) {
                (keychain) throws(KeychainError) -> [(item: Item, secret: Data)]? in
                try Item.itemsWithSecrets(matching: criteria.query, limit: 2, in: keychain)
            }
            guard var found = listed else { return nil }
            guard found.count < 2 else {
                for index in found.indices { found[index].secret.resetBytes(in: 0..<found[index].secret.count) }
                return nil
            }
            let first = found.indices.min { listsBefore(found[$0].item, found[$1].item) }
            // The chosen secret leaves the list (so the caller holds its only copy, and can overwrite it); the
            // others are overwritten before they are let go.
            var chosen: (item: Item, secret: Data, location: KeychainLocation)?
            if let first {
                chosen = (found[first].item, found[first].secret, location)
                found[first].secret = Data()
            }
            for index in found.indices { found[index].secret.resetBytes(in: 0..<found[index].secret.count) }
            if let chosen { return chosen }
        }
        throw .status(errSecItemNotFound, searchContext)
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
        throw .status(errSecItemNotFound, searchContext)
    }

    /// An item's secret, or `nil` when the item is gone.
    static func secret<Item: PasswordItem>(
        of item: Item, in location: KeychainLocation, _ session: ToolSession
    ) throws(ToolFailure) -> Data? {
        try reading(location, session, context: "SecKeychainItemCopyContent") {
            (keychain) throws(KeychainError) -> Data? in
            try item.secret(in: keychain)
        }
    }

    /// The context macOS's tool names when a search fails.
    private static let searchContext = "SecKeychainSearchCopyNext"

    /// The order items are listed and chosen in: by their listing order's fields.
    private static func listsBefore<Item: PasswordItem>(_ first: Item, _ second: Item) -> Bool {
        first.listingOrder.lexicographicallyPrecedes(second.listingOrder)
    }

    /// Runs `body` on the keychain at `location` (which must exist unless it is the default one), asking for the
    /// passcode when it is locked; a failure is reported with `context`, as macOS's tool names the call.
    private static func reading<Result>(
        _ location: KeychainLocation, _ session: ToolSession, context: String,
        _ body: (Keychain) throws(KeychainError) -> Result
    ) throws(ToolFailure) -> Result {
        let keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            return try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) -> Result in
                try body(keychain)
            }
        } catch {
            throw .keychain(error, context)
        }
    }
}
