import Foundation
import KeychainCore

// keychaind's messages in their wire form (WireWriter, WireReader): an envelope is a flag byte (bit 0: a user
// follows, bit 1: a caller follows, bit 2: a forwarded process follows), those, then the request; a request or a reply is a tag byte, then its
// fields. A tag is a case's place in its enum; new cases go at the end (and a new protocol version).

extension DaemonEnvelope: DaemonMessage {
    package func write(to writer: inout WireWriter) {
        writer.byte((user == nil ? 0 : 1) | (caller == nil ? 0 : 2) | (forwarded == nil ? 0 : 4))
        if let user { writer.uint32(user) }
        caller?.write(to: &writer)
        forwarded?.write(to: &writer)
        request.write(to: &writer)
    }

    package init(wire reader: inout WireReader) throws(EngineError) {
        let flags = try reader.byte()
        guard flags & ~7 == 0 else { throw reader.malformed("an envelope with unknown flags \(flags)") }
        let user = flags & 1 != 0 ? try reader.uint32() : nil
        let caller = flags & 2 != 0 ? try Caller(wire: &reader) : nil
        let forwarded = flags & 4 != 0 ? try ForwardedProcess(wire: &reader) : nil
        self.init(user: user, caller: caller, forwarded: forwarded, request: try DaemonRequest(wire: &reader))
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
    func write(to writer: inout WireWriter) {
        switch self {
        case .hello(let version):
            writer.byte(RequestTag.hello.rawValue)
            writer.int(version)
        case .backend(let request): request.write(to: &writer)
        case .subscribe: writer.byte(RequestTag.subscribe.rawValue)
        case .registerApp(let path, let entitlements, let insecure):
            writer.byte(RequestTag.registerApp.rawValue)
            writer.string(path)
            writer.data(entitlements)
            writer.bool(insecure)
        case .unregisterApp(let path):
            writer.byte(RequestTag.unregisterApp.rawValue)
            writer.string(path)
        case .listApps: writer.byte(RequestTag.listApps.rawValue)
        case .describe: writer.byte(RequestTag.describe.rawValue)
        case .ping: writer.byte(RequestTag.ping.rawValue)
        case .sync(let operation, let reportsProgress):
            writer.byte(RequestTag.sync.rawValue)
            writer.data(operation)
            writer.bool(reportsProgress)
        case .beginWriteSession: writer.byte(RequestTag.beginWriteSession.rawValue)
        case .endWriteSession(let commit):
            writer.byte(RequestTag.endWriteSession.rawValue)
            writer.bool(commit)
        }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let tag = RequestTag(rawValue: raw), tag != .retiredSetEraseAfter else {
            throw reader.malformed("a request of unknown kind \(raw)")
        }
        if let request = try BackendRequest(tag: tag, wire: &reader) {
            self = .backend(request)
            return
        }
        switch tag {
        case .hello: self = .hello(version: try reader.int())
        case .subscribe: self = .subscribe
        case .registerApp:
            self = .registerApp(
                path: try reader.string(), entitlements: try reader.data(), allowsInsecureExecution: try reader.bool())
        case .unregisterApp: self = .unregisterApp(path: try reader.string())
        case .listApps: self = .listApps
        case .describe: self = .describe
        case .ping: self = .ping
        case .sync: self = .sync(try reader.data(), reportsProgress: try reader.bool())
        case .beginWriteSession: self = .beginWriteSession
        case .endWriteSession: self = .endWriteSession(commit: try reader.bool())
        default: throw reader.malformed("a request of unknown kind \(raw)")
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
    package func write(to writer: inout WireWriter) {
        switch self {
        case .welcome(let version):
            writer.byte(ReplyTag.welcome.rawValue)
            writer.int(version)
        case .backend(let reply): reply.write(to: &writer)
        case .apps(let apps):
            writer.byte(ReplyTag.apps.rawValue)
            writer.list(apps) { $1.write(to: &$0) }
        case .description(let description):
            writer.byte(ReplyTag.description.rawValue)
            description.write(to: &writer)
        case .changed: writer.byte(ReplyTag.changed.rawValue)
        case .failure(let error):
            writer.byte(ReplyTag.failure.rawValue)
            error.write(to: &writer)
        case .progress(let stage, let done, let total):
            writer.byte(ReplyTag.progress.rawValue)
            writer.int(stage)
            writer.int(done)
            writer.int(total)
        }
    }

    package init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let tag = ReplyTag(rawValue: raw) else { throw reader.malformed("a reply of unknown kind \(raw)") }
        if let reply = try BackendReply(tag: tag, wire: &reader) {
            self = .backend(reply)
            return
        }
        switch tag {
        case .welcome: self = .welcome(version: try reader.int())
        case .apps:
            self = .apps(
                try reader.list(minimumSize: 17) { (reader) throws(EngineError) in try RegisteredApp(wire: &reader) })
        case .description: self = .description(try DaemonDescription(wire: &reader))
        case .changed: self = .changed
        case .failure: self = .failure(try EngineError(wire: &reader))
        case .progress: self = .progress(stage: try reader.int(), done: try reader.int(), total: try reader.int())
        default: throw reader.malformed("a reply of unknown kind \(raw)")
        }
    }
}
