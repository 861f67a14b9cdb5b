import Foundation
import KeychainCore

/// `keychain-stress acknowledged DIR SEED`: mixed writes until killed, each announced before it starts
/// (`B set KEY VALUE`, `B delete KEY`, `B batch KEY=VALUE,…`) and acknowledged after it returns (`A`, or `N` for a
/// batch refused as a whole), unbuffered, so a test that kills the process knows which writes were acknowledged and
/// which one was in flight.
///
/// A set adds, and updates on a duplicate; a delete of a missing key is fine; a batch adds three keys of a small pool
/// in one transaction: all of them, or none when one already exists.
func runAcknowledgedWriter(engine: Engine, seed: UInt64) {
    var random = SeededGenerator(state: seed)
    let keys = (0..<50).map { "k\($0)" }
    var serial = 0
    while true {
        serial += 1
        let value = "v\(seed % 100_000)-\(serial)"
        let choice = Int.random(in: 0..<10, using: &random)
        let key = keys[Int.random(in: 0..<keys.count, using: &random)]
        switch choice {
        case 0..<6:
            say("B set \(key) \(value)")
            set(key, value, in: engine)
        case 6..<9:
            // A third of the deletes free a batch key, so batches keep landing.
            let victim =
                choice == 8
                ? "b\(Int.random(in: 0..<30, using: &random))-\(Int.random(in: 0..<3, using: &random))" : key
            say("B delete \(victim)")
            let deleted = code { _ = try engine.delete(query(victim), for: caller) }
            if deleted != nil && deleted != .itemNotFound {
                fail("delete \(victim): \(String(describing: deleted))")
            }
        default:
            let batch = (0..<3).map { index in
                ("b\(Int.random(in: 0..<30, using: &random))-\(index)", "\(value)-\(index)")
            }
            say("B batch " + batch.map { "\($0.0)=\($0.1)" }.joined(separator: ","))
            let result = code {
                try engine.batch(for: caller) { (batchWriter) throws(EngineError) in
                    for (key, value) in batch { try batchWriter.add(item(key, value)) }
                }
            }
            if result == .duplicateItem {
                say("N")
                continue
            }
            if result != nil { fail("batch: \(String(describing: result))") }
        }
        say("A")
    }
}
