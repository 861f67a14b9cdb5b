import Foundation
import KeychainCore

// The keychain seam's requests and replies in keychaind's wire form: a tag byte (``RequestTag``, ``ReplyTag``),
// then the case's fields. A new request is a case here with its fields, written and read in the same order.

/// A request's kind on the wire: a case's place here. New kinds go at the end (and a new protocol version).
package enum RequestTag: UInt8, CaseIterable {
    case hello, add, addBatch, addOrUpdate, copyMatching, update, delete, keybagStatus, unlock, lock
    case setPasscode, removePasscode
    /// `setEraseAfter` as protocol version 3 first wrote it (the count alone), which no client of this version sends.
    case retiredSetEraseAfter
    case canOpenFiles, wrapFileKey, unwrapFileKey, fileHeaderTag
    case isValidFileHeaderTag, verify, changes, latestChangeSequence, subscribe, registerApp, unregisterApp
    case listApps, describe
    /// The erase threshold with the passcode that vouches for it.
    case setEraseAfter, checkPasscode, writeEach, ping
    case useKey, generateKey, writeAll
    /// A sync verb's operation, carried out by the daemon on the keychain it serves.
    case sync
    case beginWriteSession, endWriteSession
}

/// A reply's kind on the wire: a case's place here. New kinds go at the end (and a new protocol version).
package enum ReplyTag: UInt8, CaseIterable {
    case welcome, written, items, keybagStatus, done, bool, data, key, report, changes, sequence, apps
    case description, changed, failure, writes, progress
}

extension BackendRequest {
    func write(to writer: inout WireWriter) {
        switch self {
        case .add(let item):
            writer.byte(RequestTag.add.rawValue)
            item.write(to: &writer)
        case .addBatch(let items):
            writer.byte(RequestTag.addBatch.rawValue)
            writer.list(items) { $1.write(to: &$0) }
        case .addOrUpdate(let item):
            writer.byte(RequestTag.addOrUpdate.rawValue)
            item.write(to: &writer)
        case .copyMatching(let query):
            writer.byte(RequestTag.copyMatching.rawValue)
            query.write(to: &writer)
        case .update(let query, let changes):
            writer.byte(RequestTag.update.rawValue)
            query.write(to: &writer)
            changes.write(to: &writer)
        case .delete(let query):
            writer.byte(RequestTag.delete.rawValue)
            query.write(to: &writer)
        case .keybagStatus: writer.byte(RequestTag.keybagStatus.rawValue)
        case .unlock(let passcode):
            writer.byte(RequestTag.unlock.rawValue)
            writer.passcode(passcode)
        case .checkPasscode(let passcode):
            writer.byte(RequestTag.checkPasscode.rawValue)
            writer.passcode(passcode)
        case .lock: writer.byte(RequestTag.lock.rawValue)
        case .setPasscode(let passcode, let current):
            writer.byte(RequestTag.setPasscode.rawValue)
            writer.passcode(passcode)
            writer.optional(current) { $0.passcode($1) }
        case .removePasscode(let current):
            writer.byte(RequestTag.removePasscode.rawValue)
            writer.passcode(current)
        case .setEraseAfter(let failures, let passcode):
            writer.byte(RequestTag.setEraseAfter.rawValue)
            writer.int(failures)
            writer.optional(passcode) { $0.passcode($1) }
        case .canOpenFiles(let fileClass):
            writer.byte(RequestTag.canOpenFiles.rawValue)
            fileClass.write(to: &writer)
        case .wrapFileKey(let key, let fileClass, let context):
            writer.byte(RequestTag.wrapFileKey.rawValue)
            writer.secretKey(key)
            fileClass.write(to: &writer)
            writer.data(context)
        case .unwrapFileKey(let wrapped, let fileClass, let context):
            writer.byte(RequestTag.unwrapFileKey.rawValue)
            writer.data(wrapped)
            fileClass.write(to: &writer)
            writer.data(context)
        case .fileHeaderTag(let header):
            writer.byte(RequestTag.fileHeaderTag.rawValue)
            writer.data(header)
        case .isValidFileHeaderTag(let tag, let header):
            writer.byte(RequestTag.isValidFileHeaderTag.rawValue)
            writer.data(tag)
            writer.data(header)
        case .verify: writer.byte(RequestTag.verify.rawValue)
        case .changes(let since, let limit):
            writer.byte(RequestTag.changes.rawValue)
            writer.int64(since)
            writer.int(limit)
        case .latestChangeSequence: writer.byte(RequestTag.latestChangeSequence.rawValue)
        case .writeEach(let writes):
            writer.byte(RequestTag.writeEach.rawValue)
            writer.list(writes) { $1.write(to: &$0) }
        case .useKey(let query, let use):
            writer.byte(RequestTag.useKey.rawValue)
            query.write(to: &writer)
            use.write(to: &writer)
        case .generateKey(let generation):
            writer.byte(RequestTag.generateKey.rawValue)
            generation.write(to: &writer)
        case .writeAll(let writes):
            writer.byte(RequestTag.writeAll.rawValue)
            writer.list(writes) { $1.write(to: &$0) }
        }
    }

    /// The writes of a batch: item writes only, one level only (a batch never holds a batch, nor a bomb of them).
    private static func batchedWrites(
        _ reader: inout WireReader, in batch: String
    ) throws(EngineError) -> [BackendRequest] {
        try reader.list(minimumSize: 1) { (reader) throws(EngineError) -> BackendRequest in
            let raw = try reader.byte()
            guard let tag = RequestTag(rawValue: raw), tag != .writeEach, tag != .writeAll,
                let write = try BackendRequest(tag: tag, wire: &reader), write.isItemWrite
            else { throw reader.malformed("a \(batch) holding a request of kind \(raw), not an item write") }
            return write
        }
    }

    /// The request a keychain tag starts, its fields read from `reader`; `nil` for a tag of the daemon's own.
    init?(tag: RequestTag, wire reader: inout WireReader) throws(EngineError) {
        switch tag {
        case .add: self = .add(try NewItem(wire: &reader))
        case .addBatch:
            self = .addBatch(
                try reader.list(minimumSize: 17) { (reader) throws(EngineError) in try NewItem(wire: &reader) })
        case .addOrUpdate: self = .addOrUpdate(try NewItem(wire: &reader))
        case .copyMatching: self = .copyMatching(try ItemQuery(wire: &reader))
        case .update: self = .update(try ItemQuery(wire: &reader), try ItemChanges(wire: &reader))
        case .delete: self = .delete(try ItemQuery(wire: &reader))
        case .keybagStatus: self = .keybagStatus
        case .unlock: self = .unlock(try reader.passcode())
        case .checkPasscode: self = .checkPasscode(try reader.passcode())
        case .lock: self = .lock
        case .setPasscode:
            self = .setPasscode(
                try reader.passcode(),
                current: try reader.optional { (reader) throws(EngineError) in try reader.passcode() })
        case .removePasscode: self = .removePasscode(current: try reader.passcode())
        case .setEraseAfter:
            self = .setEraseAfter(
                try reader.int(),
                passcode: try reader.optional { (reader) throws(EngineError) in try reader.passcode() })
        case .canOpenFiles: self = .canOpenFiles(try FileKeyClass(wire: &reader))
        case .wrapFileKey:
            self = .wrapFileKey(
                try reader.secretKey(), try FileKeyClass(wire: &reader), context: try reader.byteArray())
        case .unwrapFileKey:
            self = .unwrapFileKey(try reader.data(), try FileKeyClass(wire: &reader), context: try reader.byteArray())
        case .fileHeaderTag: self = .fileHeaderTag(try reader.byteArray())
        case .isValidFileHeaderTag: self = .isValidFileHeaderTag(try reader.data(), try reader.byteArray())
        case .verify: self = .verify
        case .changes: self = .changes(since: try reader.int64(), limit: try reader.int())
        case .latestChangeSequence: self = .latestChangeSequence
        case .writeEach: self = .writeEach(try Self.batchedWrites(&reader, in: "writeEach"))
        case .writeAll: self = .writeAll(try Self.batchedWrites(&reader, in: "writeAll"))
        case .useKey: self = .useKey(try ItemQuery(wire: &reader), try KeyUse(wire: &reader))
        case .generateKey: self = .generateKey(try KeyGeneration(wire: &reader))
        case .hello, .subscribe, .registerApp, .unregisterApp, .listApps, .describe, .retiredSetEraseAfter, .ping,
            .sync, .beginWriteSession, .endWriteSession:
            return nil
        }
    }
}

extension BackendReply {
    func write(to writer: inout WireWriter) {
        switch self {
        case .written(let result):
            writer.byte(ReplyTag.written.rawValue)
            writer.list(result.items) { $1.write(to: &$0) }
            writer.int64(result.changeSequence)
        case .items(let items):
            writer.byte(ReplyTag.items.rawValue)
            writer.list(items) { $1.write(to: &$0) }
        case .keybagStatus(let status):
            writer.byte(ReplyTag.keybagStatus.rawValue)
            status.write(to: &writer)
        case .done: writer.byte(ReplyTag.done.rawValue)
        case .bool(let flag):
            writer.byte(ReplyTag.bool.rawValue)
            writer.bool(flag)
        case .data(let bytes):
            writer.byte(ReplyTag.data.rawValue)
            writer.data(bytes)
        case .key(let key):
            writer.byte(ReplyTag.key.rawValue)
            writer.secretKey(key)
        case .report(let report):
            writer.byte(ReplyTag.report.rawValue)
            report.write(to: &writer)
        case .changes(let batch):
            writer.byte(ReplyTag.changes.rawValue)
            batch.write(to: &writer)
        case .sequence(let sequence):
            writer.byte(ReplyTag.sequence.rawValue)
            writer.int64(sequence)
        case .writes(let outcomes):
            writer.byte(ReplyTag.writes.rawValue)
            writer.list(outcomes) { (writer, outcome) in
                switch outcome {
                case .success(let result):
                    writer.bool(true)
                    writer.list(result.items) { $1.write(to: &$0) }
                    writer.int64(result.changeSequence)
                case .failure(let error):
                    writer.bool(false)
                    error.write(to: &writer)
                }
            }
        }
    }

    /// The reply a keychain tag starts, its fields read from `reader`; `nil` for a tag of the daemon's own.
    init?(tag: ReplyTag, wire reader: inout WireReader) throws(EngineError) {
        let readItems = { (reader: inout WireReader) throws(EngineError) -> [Item] in
            try reader.list(minimumSize: 34) { (reader) throws(EngineError) in try Item(wire: &reader) }
        }
        switch tag {
        case .written:
            self = .written(WriteResult(items: try readItems(&reader), changeSequence: try reader.int64()))
        case .items: self = .items(try readItems(&reader))
        case .keybagStatus: self = .keybagStatus(try KeybagStatus(wire: &reader))
        case .done: self = .done
        case .bool: self = .bool(try reader.bool())
        case .data: self = .data(try reader.data())
        case .key: self = .key(try reader.secretKey())
        case .report: self = .report(try VerificationReport(wire: &reader))
        case .changes: self = .changes(try ChangeBatch(wire: &reader))
        case .sequence: self = .sequence(try reader.int64())
        case .writes:
            self = .writes(
                try reader.list(minimumSize: 2) { (reader) throws(EngineError) -> Result<WriteResult, EngineError> in
                    guard try reader.bool() else { return .failure(try EngineError(wire: &reader)) }
                    return .success(WriteResult(items: try readItems(&reader), changeSequence: try reader.int64()))
                })
        case .welcome, .apps, .description, .changed, .failure, .progress: return nil
        }
    }
}
