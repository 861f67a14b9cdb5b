import Dispatch
import Foundation
import KeychainCore

extension SyncDevice {
    /// Opens the item versions `stored` as ``open(_:)`` does each, on every core at once: parsing, unwrapping the
    /// item key and decrypting were most of a pass's time (profile of issue 23). The epochs' keys are looked up
    /// first, on this thread (an `ak` key may need the keychain); a version whose key is not at hand gets no result
    /// here, and ``open(_:)`` then opens it, or says why it cannot, alone.
    /// - Returns: each version's content or failure, by its record's name.
    func openAll(_ stored: [SyncDatabase.StoredEntry]) -> [String: Result<ItemContent, SyncError>] {
        guard stored.count > 1 else { return [:] }
        var keyring: [EpochID: [SyncKeyClass: EpochKeys]] = [:]
        for epoch in epochKeys.keys {
            for keyClass in SyncKeyClass.allCases {
                if let keys = try? epochKeys(epoch, for: keyClass) { keyring[epoch, default: [:]][keyClass] = keys }
            }
        }
        let keys = keyring
        let decoded = passEntries ?? [:]
        var results = [Result<ItemContent, SyncError>?](repeating: nil, count: stored.count)
        results.withUnsafeMutableBufferPointer { buffer in
            // Each iteration writes only its own element of the buffer.
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: stored.count) { index in
                let version = stored[index]
                let name = RecordName.log(version.author, version.sequence)
                do throws(SyncError) {
                    let entry: LogEntry
                    if let known = decoded[name], known.bytes == version.bytes {
                        entry = known.entry
                    } else {
                        entry = try SignedRecord.unverifiedBody(LogEntry.self, version.bytes, name: name)
                    }
                    guard let epoch = entry.item?.epoch, let keyClass = entry.item?.keyClass,
                        let keys = keys[epoch]?[keyClass]
                    else { return }
                    output[index] = .success(try Self.open(entry, name: name, keys: keys))
                } catch {
                    output[index] = .failure(error)
                }
            }
        }
        var opened: [String: Result<ItemContent, SyncError>] = [:]
        for (version, result) in zip(stored, results) {
            if let result { opened[RecordName.log(version.author, version.sequence)] = result }
        }
        return opened
    }
}
