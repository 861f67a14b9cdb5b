import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One run of a command, timed from its start to its exit, and SIGKILLed should it outlive a bound: a client that
/// hangs on a daemon that no longer answers is a failed run, not a hung test.
struct TimedCommand {
    /// What a run did.
    struct Outcome {
        /// The exit status, or `nil` when the run was killed at the bound (or died of a signal).
        var status: Int32?
        var output: String
        var errors: String
        /// Wall time from the spawn to the exit.
        var seconds: Double
    }

    /// Runs `command` (its first element the executable) with `environment`, killing it after `limit` seconds.
    static func run(_ command: [String], environment: [String: String], limit: TimeInterval) throws -> Outcome {
        let output = try ChildPipe()
        let errors = try ChildPipe()
        let start = DispatchTime.now().uptimeNanoseconds
        let pid = try Spawn.start(
            command[0], Array(command.dropFirst()), environment: environment,
            descriptors: [-1, output.writing, errors.writing], controllingTerminal: nil)
        output.closeWriting()
        errors.closeWriting()
        let outputReader = PipeReader(output)
        let errorsReader = PipeReader(errors)
        // The watchdog kills only a child not yet reaped: the exit is noticed (waitid with WNOWAIT) and marked under
        // the lock before the child is reaped, so its pid cannot have been reused when the watchdog fires.
        let exited = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            exited.withLock { if !$0 { kill(pid, SIGKILL) } }
        }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        exited.withLock { $0 = true }
        let status = try Spawn.waitStatus(pid)
        return Outcome(
            status: status & 0x7F == 0 ? (status >> 8) & 0xFF : nil,
            output: String(decoding: outputReader.wait(), as: UTF8.self),
            errors: String(decoding: errorsReader.wait(), as: UTF8.self), seconds: seconds)
    }

    /// The median of `values` (the upper one of an even count).
    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }
}
