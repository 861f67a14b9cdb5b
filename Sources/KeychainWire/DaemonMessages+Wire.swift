import Foundation
import KeychainCore

// keychaind's messages in their wire form (WireWriter, WireReader): an envelope is a flag byte (bit 0: a user
// follows, bit 1: a caller follows), those, then the request; a request or a reply is a tag byte, then its
// fields. A tag is a case's place in its enum; new cases go at the end (and a new protocol version).

extension DaemonEnvelope: DaemonMessage {
    package func write(to writer: inout WireWriter) {
        writer.byte((user == nil ? 0 : 1) | (caller == nil ? 0 : 2))
        if let user { writer.uint32(user) }
        caller?.write(to: &writer)
        request.write(to: &writer)
    }

    package init(wire reader: inout WireReader) throws(EngineError) {
        let flags = try reader.byte()
        guard flags & ~3 == 0 else { throw reader.malformed("an envelope with unknown flags \(flags)") }
        let user = flags & 1 != 0 ? try reader.uint32() : nil
        let caller = flags & 2 != 0 ? try Caller(wire: &reader) : nil
        self.init(user: user, caller: caller, request: try DaemonRequest(wire: &reader))
    }
}

extension FileKeyClass {
    func write(to writer: inout WireWriter) { writer.byte(rawValue) }

    init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let fileClass = FileKeyClass(rawValue: raw) else { throw reader.malformed("no file key class \(raw)") }
        self = fileClass
    }
}

extension DaemonRequest {
    private enum Tag: UInt8 {
        case hello, add, addBatch, addOrUpdate, copyMatching, update, delete, keybagStatus, unlock, lock
        case setPasscode, removePasscode, setEraseAfter, canOpenFiles, wrapFileKey, unwrapFileKey, fileHeaderTag
        case isValidFileHeaderTag, verify, changes, latestChangeSequence, subscribe, registerApp, unregisterApp
        case listApps, describe
        /// The erase threshold with the passcode that vouches for it; ``setEraseAfter`` (the threshold alone)
        /// still decodes, and only root may send it.
        case setEraseAfterWithPasscode, checkPasscode
    }

    func write(to writer: inout WireWriter) {
        switch self {
        case .hello(let version):
            writer.byte(Tag.hello.rawValue)
            writer.int(version)
        case .add(let item):
            writer.byte(Tag.add.rawValue)
            item.write(to: &writer)
        case .addBatch(let items):
            writer.byte(Tag.addBatch.rawValue)
            writer.list(items) { $1.write(to: &$0) }
        case .addOrUpdate(let item):
            writer.byte(Tag.addOrUpdate.rawValue)
            item.write(to: &writer)
        case .copyMatching(let query):
            writer.byte(Tag.copyMatching.rawValue)
            query.write(to: &writer)
        case .update(let query, let changes):
            writer.byte(Tag.update.rawValue)
            query.write(to: &writer)
            changes.write(to: &writer)
        case .delete(let query):
            writer.byte(Tag.delete.rawValue)
            query.write(to: &writer)
        case .keybagStatus: writer.byte(Tag.keybagStatus.rawValue)
        case .unlock(let passcode):
            writer.byte(Tag.unlock.rawValue)
            writer.passcode(passcode)
        case .checkPasscode(let passcode):
            writer.byte(Tag.checkPasscode.rawValue)
            writer.passcode(passcode)
        case .lock: writer.byte(Tag.lock.rawValue)
        case .setPasscode(let passcode, let current):
            writer.byte(Tag.setPasscode.rawValue)
            writer.passcode(passcode)
            writer.optional(current) { $0.passcode($1) }
        case .removePasscode(let current):
            writer.byte(Tag.removePasscode.rawValue)
            writer.passcode(current)
        case .setEraseAfter(let failures, let passcode):
            writer.byte(Tag.setEraseAfterWithPasscode.rawValue)
            writer.int(failures)
            writer.optional(passcode) { $0.passcode($1) }
        case .canOpenFiles(let fileClass):
            writer.byte(Tag.canOpenFiles.rawValue)
            fileClass.write(to: &writer)
        case .wrapFileKey(let key, let fileClass, let context):
            writer.byte(Tag.wrapFileKey.rawValue)
            writer.data(key)
            fileClass.write(to: &writer)
            writer.data(context)
        case .unwrapFileKey(let wrapped, let fileClass, let context):
            writer.byte(Tag.unwrapFileKey.rawValue)
            writer.data(wrapped)
            fileClass.write(to: &writer)
            writer.data(context)
        case .fileHeaderTag(let header):
            writer.byte(Tag.fileHeaderTag.rawValue)
            writer.data(header)
        case .isValidFileHeaderTag(let tag, let header):
            writer.byte(Tag.isValidFileHeaderTag.rawValue)
            writer.data(tag)
            writer.data(header)
        case .verify: writer.byte(Tag.verify.rawValue)
        case .changes(let since, let limit):
            writer.byte(Tag.changes.rawValue)
            writer.int64(since)
            writer.int(limit)
        case .latestChangeSequence: writer.byte(Tag.latestChangeSequence.rawValue)
        case .subscribe: writer.byte(Tag.subscribe.rawValue)
        case .registerApp(let path, let entitlements, let insecure):
            writer.byte(Tag.registerApp.rawValue)
            writer.string(path)
            writer.data(entitlements)
            writer.bool(insecure)
        case .unregisterApp(let path):
            writer.byte(Tag.unregisterApp.rawValue)
            writer.string(path)
        case .listApps: writer.byte(Tag.listApps.rawValue)
        case .describe: writer.byte(Tag.describe.rawValue)
        }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let tag = Tag(rawValue: raw) else { throw reader.malformed("a request of unknown kind \(raw)") }
        switch tag {
        case .hello: self = .hello(version: try reader.int())
        case .add: self = .add(try NewItem(wire: &reader))
        case .addBatch:
            self = .addBatch(
                try reader.list(minimumSize: 17) { (reader) throws(EngineError) in try NewItem(wire: &reader) })
        case .addOrUpdate: self = .addOrUpdate(try NewItem(wire: &reader))
        case .copyMatching: self = .copyMatching(try ItemQuery(wire: &reader))
        case .update: self = .update(try ItemQuery(wire: &reader), try ItemChanges(wire: &reader))
        case .delete: self = .delete(try ItemQuery(wire: &reader))
        case .keybagStatus: self = .keybagStatus
        case .unlock: self = .unlock(passcode: try reader.passcode())
        case .checkPasscode: self = .checkPasscode(try reader.passcode())
        case .lock: self = .lock
        case .setPasscode:
            self = .setPasscode(
                try reader.passcode(),
                current: try reader.optional { (reader) throws(EngineError) in try reader.passcode() })
        case .removePasscode: self = .removePasscode(current: try reader.passcode())
        case .setEraseAfter: self = .setEraseAfter(try reader.int(), passcode: nil)
        case .setEraseAfterWithPasscode:
            self = .setEraseAfter(
                try reader.int(),
                passcode: try reader.optional { (reader) throws(EngineError) in try reader.passcode() })
        case .canOpenFiles: self = .canOpenFiles(try FileKeyClass(wire: &reader))
        case .wrapFileKey:
            self = .wrapFileKey(
                key: try reader.data(), try FileKeyClass(wire: &reader), context: try reader.byteArray())
        case .unwrapFileKey:
            self = .unwrapFileKey(try reader.data(), try FileKeyClass(wire: &reader), context: try reader.byteArray())
        case .fileHeaderTag: self = .fileHeaderTag(try reader.byteArray())
        case .isValidFileHeaderTag: self = .isValidFileHeaderTag(try reader.data(), try reader.byteArray())
        case .verify: self = .verify
        case .changes: self = .changes(since: try reader.int64(), limit: try reader.int())
        case .latestChangeSequence: self = .latestChangeSequence
        case .subscribe: self = .subscribe
        case .registerApp:
            self = .registerApp(
                path: try reader.string(), entitlements: try reader.data(), allowsInsecureExecution: try reader.bool())
        case .unregisterApp: self = .unregisterApp(path: try reader.string())
        case .listApps: self = .listApps
        case .describe: self = .describe
        }
    }
}

extension RegisteredApp {
    func write(to writer: inout WireWriter) {
        writer.string(path)
        writer.string(sha256)
        writer.string(applicationIdentifier)
        writer.list(accessGroups) { $0.string($1) }
        writer.bool(allowsInsecureExecution)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            path: try reader.string(), sha256: try reader.string(), applicationIdentifier: try reader.string(),
            accessGroups: try reader.list(minimumSize: 4) { (reader) throws(EngineError) in try reader.string() },
            allowsInsecureExecution: try reader.bool())
    }
}

extension DaemonDescription {
    func write(to writer: inout WireWriter) {
        writer.uint32(uid)
        writer.string(applicationIdentifier)
        writer.list(accessGroups) { $0.string($1) }
        writer.bool(isRegisteredApp)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            uid: try reader.uint32(), applicationIdentifier: try reader.string(),
            accessGroups: try reader.list(minimumSize: 4) { (reader) throws(EngineError) in try reader.string() },
            isRegisteredApp: try reader.bool())
    }
}

extension DaemonReply: DaemonMessage {
    private enum Tag: UInt8 {
        case welcome, item, items, count, keybagStatus, done, bool, data, report, changes, sequence, apps
        case description, changed, failure
    }

    package func write(to writer: inout WireWriter) {
        switch self {
        case .welcome(let version):
            writer.byte(Tag.welcome.rawValue)
            writer.int(version)
        case .item(let item):
            writer.byte(Tag.item.rawValue)
            item.write(to: &writer)
        case .items(let items):
            writer.byte(Tag.items.rawValue)
            writer.list(items) { $1.write(to: &$0) }
        case .count(let count):
            writer.byte(Tag.count.rawValue)
            writer.int(count)
        case .keybagStatus(let status):
            writer.byte(Tag.keybagStatus.rawValue)
            status.write(to: &writer)
        case .done: writer.byte(Tag.done.rawValue)
        case .bool(let flag):
            writer.byte(Tag.bool.rawValue)
            writer.bool(flag)
        case .data(let bytes):
            writer.byte(Tag.data.rawValue)
            writer.data(bytes)
        case .report(let report):
            writer.byte(Tag.report.rawValue)
            report.write(to: &writer)
        case .changes(let batch):
            writer.byte(Tag.changes.rawValue)
            batch.write(to: &writer)
        case .sequence(let sequence):
            writer.byte(Tag.sequence.rawValue)
            writer.int64(sequence)
        case .apps(let apps):
            writer.byte(Tag.apps.rawValue)
            writer.list(apps) { $1.write(to: &$0) }
        case .description(let description):
            writer.byte(Tag.description.rawValue)
            description.write(to: &writer)
        case .changed: writer.byte(Tag.changed.rawValue)
        case .failure(let error):
            writer.byte(Tag.failure.rawValue)
            error.write(to: &writer)
        }
    }

    package init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let tag = Tag(rawValue: raw) else { throw reader.malformed("a reply of unknown kind \(raw)") }
        switch tag {
        case .welcome: self = .welcome(version: try reader.int())
        case .item: self = .item(try Item(wire: &reader))
        case .items:
            self = .items(try reader.list(minimumSize: 34) { (reader) throws(EngineError) in try Item(wire: &reader) })
        case .count: self = .count(try reader.int())
        case .keybagStatus: self = .keybagStatus(try KeybagStatus(wire: &reader))
        case .done: self = .done
        case .bool: self = .bool(try reader.bool())
        case .data: self = .data(try reader.data())
        case .report: self = .report(try VerificationReport(wire: &reader))
        case .changes: self = .changes(try ChangeBatch(wire: &reader))
        case .sequence: self = .sequence(try reader.int64())
        case .apps:
            self = .apps(
                try reader.list(minimumSize: 17) { (reader) throws(EngineError) in try RegisteredApp(wire: &reader) })
        case .description: self = .description(try DaemonDescription(wire: &reader))
        case .changed: self = .changed
        case .failure: self = .failure(try EngineError(wire: &reader))
        }
    }
}
