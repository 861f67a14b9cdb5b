import Foundation
import KeychainCore

/// `keychain-stress acknowledged DIR SEED`: mixed writes until killed, each announced before it starts
/// (`B set KEY VALUE`, `B delete KEY`, `B batch KEY=VALUE,…`) and acknowledged after it returns (`A`), unbuffered,
/// so a test that kills the process knows which writes were acknowledged and which one was in flight.
///
/// A set adds, and updates on a duplicate; a delete of a missing key is fine; a batch adds several new keys in one
/// transaction (all or none).
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
            say("B delete \(key)")
            let deleted = code { _ = try engine.delete(query(key), for: caller) }
            if deleted != nil && deleted != .itemNotFound { fail("delete \(key): \(String(describing: deleted))") }
        default:
            // Keys that exist fail the batch with a duplicate: then none of it is written.
            let batch = (0..<3).map { index in ("b\(seed % 100_000)-\(serial)-\(index)", "\(value)-\(index)") }
            say("B batch " + batch.map { "\($0.0)=\($0.1)" }.joined(separator: ","))
            let result = code {
                try engine.batch(for: caller) { (batchWriter) throws(EngineError) in
                    for (key, value) in batch { try batchWriter.add(item(key, value)) }
                }
            }
            if result != nil { fail("batch: \(String(describing: result))") }
        }
        say("A")
    }
}
