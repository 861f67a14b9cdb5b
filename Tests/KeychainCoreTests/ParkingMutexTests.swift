import Foundation
import Testing

@testable import KeychainCore

@Suite("ParkingMutex: the engine's lock, whose waiters sleep instead of spinning")
struct ParkingMutexTests {
    @Test("Threads that increment through the lock at once lose no increment")
    func exclusion() {
        let counter = ParkingMutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                counter.withLock { value in
                    // A read and a write apart: two holders at once would lose increments.
                    let seen = value
                    value = seen + 1
                }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("An error thrown under the lock reaches the caller, typed, and the lock is free again")
    func throwing() {
        let lock = ParkingMutex([Int]())
        #expect(throws: EngineError.self) {
            try lock.withLock { (values) throws(EngineError) in
                values.append(1)
                throw EngineError(.param, "refused")
            }
        }
        // A lock left held would hang here.
        #expect(lock.withLock { $0 } == [1])
    }
}
