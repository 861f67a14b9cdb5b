import TestSupport

extension PipeSession {
    /// Starts `command` (the tool, or a wrapper that executes it) with `arguments`, in `process`'s environment.
    convenience init(_ command: String, _ arguments: [String], process: SecurityProcess) throws {
        try self.init(command, arguments, environment: process.processEnvironment)
    }
}
