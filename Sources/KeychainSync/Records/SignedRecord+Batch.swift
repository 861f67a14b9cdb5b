import Dispatch
import Foundation
import KeychainCore

extension SignedRecord {
    /// Checks the log records `names` (those of `records` that exist) as signed by `author` and parses their
    /// bodies, on every core at once: per record, what ``isSigned(_:name:by:)`` then
    /// ``unverifiedBody(_:_:name:)`` say, a record not signed by `author` failing as damaged.
    static func verifiedEntries(
        _ names: [String], _ records: [String: [UInt8]], by author: PublicIdentity
    ) -> [String: Result<LogEntry, SyncError>] {
        let present = names.filter { records[$0] != nil }
        let key = author.signingKey
        var results = [Result<LogEntry, SyncError>?](repeating: nil, count: present.count)
        results.withUnsafeMutableBufferPointer { buffer in
            // Each iteration writes only its own element of the buffer.
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: present.count) { index in
                let name = present[index]
                guard let bytes = records[name] else { return }
                guard isSigned(bytes, name: name, by: key) else {
                    output[index] = .failure(SyncError(.damaged, "the record \(name) is not signed by its device"))
                    return
                }
                do throws(SyncError) {
                    output[index] = .success(try unverifiedBody(LogEntry.self, bytes, name: name))
                } catch {
                    output[index] = .failure(error)
                }
            }
        }
        var checked: [String: Result<LogEntry, SyncError>] = [:]
        for (name, result) in zip(present, results) {
            if let result { checked[name] = result }
        }
        return checked
    }
}
