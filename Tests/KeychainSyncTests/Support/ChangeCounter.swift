import Foundation

/// Counts a watch's calls, and lets a test wait for them without sleeping longer than it must.
final class ChangeCounter: @unchecked Sendable {
    // @unchecked: `count` is read and written only holding `condition`.
    private let condition = NSCondition()
    private var count = 0

    /// The callback to give the watch.
    var onChange: @Sendable () -> Void {
        { [self] in
            condition.lock()
            count += 1
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The calls so far.
    var calls: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// Waits until there have been more than `calls` calls, at most `timeout` seconds; returns whether there were.
    func wait(beyond calls: Int, timeout: Double = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while count <= calls {
            guard condition.wait(until: deadline) else { return count > calls }
        }
        return true
    }
}
