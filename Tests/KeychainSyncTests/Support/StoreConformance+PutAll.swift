import Foundation
import KeychainSync
import Testing

extension StoreConformance {
    /// A batch write (putAllIfAbsent) writes its records in order, stops at the first name taken (by another
    /// instance, with other bytes), leaves that record as it was and writes nothing after it; a batch of free names
    /// is written whole and reads back verbatim from another instance.
    static func putAllIfAbsentStopsAtTheFirstTakenName(_ fixture: some StoreFixture) throws {
        let store = try fixture.open()
        let other = try fixture.open()
        #expect(try other.putIfAbsent("devices/a/log/3", [7, 7, 7]))
        let records = (1...5).map { (name: "devices/a/log/\($0)", bytes: [UInt8](repeating: UInt8($0), count: 100)) }
        #expect(try store.putAllIfAbsent(records) == 2)
        #expect(try other.get("devices/a/log/1") == records[0].bytes)
        #expect(try other.get("devices/a/log/2") == records[1].bytes)
        #expect(try other.get("devices/a/log/3") == [7, 7, 7])
        #expect(try other.get("devices/a/log/4") == nil)
        #expect(try other.get("devices/a/log/5") == nil)
        let many = (1...600).map { (name: "devices/b/log/\($0)", bytes: Array("record \($0)".utf8)) }
        #expect(try store.putAllIfAbsent(many) == many.count)
        #expect(try other.list(prefix: "devices/b/log/").count == many.count)
        #expect(try other.get("devices/b/log/600") == Array("record 600".utf8))
        #expect(try store.putAllIfAbsent([]) == 0)
        #expect(throws: SyncStoreError.self) { try store.putAllIfAbsent([(name: "Bad Name", bytes: [1])]) }
    }
}
