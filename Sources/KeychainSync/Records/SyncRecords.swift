/// What a tool outside sync may learn of a store's records without any key (keychain-bench counts the bytes a store
/// keeps per item version with it).
public enum SyncRecords {
    /// Whether `bytes`, the record `name` of a sync store, is an item version (not a tombstone, nor a step of the
    /// trust circle), whatever format wrote it. The record's signature is not checked: this is for counting, never
    /// for trusting.
    public static func isItemVersion(_ bytes: [UInt8], name: String) -> Bool {
        guard case .log? = RecordName.parse(name) else { return false }
        return (try? SignedRecord.unverifiedBody(LogEntry.self, bytes, name: name))?.kind == .item
    }

    /// Whether `bytes`, the record `name` of a sync store, is a tombstone, as ``isItemVersion(_:name:)`` tells.
    public static func isTombstone(_ bytes: [UInt8], name: String) -> Bool {
        guard case .log? = RecordName.parse(name) else { return false }
        return (try? SignedRecord.unverifiedBody(LogEntry.self, bytes, name: name))?.kind == .tombstone
    }
}
