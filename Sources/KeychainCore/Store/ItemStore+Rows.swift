import Foundation

extension ItemStore {
    /// Whether the items table holds any row, a tombstone included: the keybag asks before it creates a fresh
    /// keybag, which only a keychain without items may get. Static, since it is asked before the engine (and its
    /// item store) is open.
    static func hasRows(in database: Database) throws(EngineError) -> Bool {
        try database.first("SELECT EXISTS (SELECT 1 FROM items)") { $0.integer(0) != 0 } ?? false
    }
}
