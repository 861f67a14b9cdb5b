import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore
@testable import KeychainWire

/// keychaind's binary wire form: every message comes back as it was, and anything malformed is a clear error,
/// never a crash or a huge allocation.
@Suite("keychaind's wire form: round trips and refusals")
struct WireCodingTests {
    private let caller = Caller(applicationIdentifier: "TEAM.app", accessGroups: ["TEAM.app", "group.shared"])

    /// The reason a decode of `bytes` failed (errSecParam, naming a malformed message), or `nil` when it decoded.
    private func refusal<Message: DaemonMessage>(_ type: Message.Type, _ bytes: [UInt8]) -> String? {
        do throws(EngineError) {
            _ = try DaemonCoding.decode(type, from: bytes)
            return nil
        } catch {
            #expect(error.code == .param)
            #expect(error.message.contains("malformed keychaind message"))
            return error.message
        }
    }

    /// Whether `message` reads back as itself: decoded and written again, the same bytes.
    private func survivesRoundTrip<Message: DaemonMessage>(_ message: Message) throws -> Bool {
        let bytes = try DaemonCoding.encode(message)
        return try DaemonCoding.encode(DaemonCoding.decode(Message.self, from: bytes)) == bytes
    }

    @Test("Every request and reply survives the wire, with real items, statuses, reports and changes")
    func roundTrips() throws {
        let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
        let new = NewItem(
            itemClass: .genericPassword,
            attributes: [
                .service: .string("svc ✓"), .account: .string("acct"), .creator: .integer(7),
                .creationDate: .date(Date(timeIntervalSince1970: 1_800_000_000.5)), .isInvisible: .bool(true),
                .generic: .data(Data([0, 255])),
            ], data: Data("secret".utf8), allowsThisDeviceOnlySynchronizable: true)
        let item = try engine.add(new, for: caller)
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("svc ✓")], synchronizable: .any,
            persistentReference: item.persistentReference, limit: .upTo(3), returning: [.data, .attributes],
            caseInsensitive: true)
        let changes = ItemChanges(attributes: [.comment: .string("c")], data: Data("new".utf8))
        // Access control's fields: the factors a request brings, and those an answer says it needs.
        var authenticated = query
        authenticated.authentication = ItemAuthentication(
            passcode: try Passcode(copying: "1234"), applicationPassword: try Passcode(copying: "pw ✓"),
            interaction: .skipItems, passcodeEpoch: UInt64.max)
        let (passcode, other) = (try Passcode(copying: "1234"), try Passcode(copying: "5678 ✓"))
        var constrained = new
        constrained.authentication = ItemAuthentication(
            applicationPassword: try Passcode(copying: "pw"), interaction: .notAllowed)
        let keychainRequests: [BackendRequest] = [
            .add(new), .addBatch([new, NewItem(itemClass: .internetPassword)]), .addOrUpdate(new),
            .copyMatching(query), .copyMatching(ItemQuery(itemClass: nil, limit: .all)), .copyMatching(authenticated),
            .add(constrained), .update(query, changes), .update(ItemQuery(itemClass: nil, limit: .one), ItemChanges()),
            .delete(query), .keybagStatus, .unlock(passcode), .checkPasscode(passcode), .lock,
            .setPasscode(passcode, current: nil), .setPasscode(other, current: passcode),
            .removePasscode(current: passcode), .setPasscode(try Passcode(copying: [0xFF, 0x00, 0xC3]), current: nil),
            .setEraseAfter(10, passcode: passcode), .setEraseAfter(10, passcode: nil), .canOpenFiles(.classB),
            .wrapFileKey(try SecretKey(copying: Array(repeating: 7, count: 32)), .classA, context: [1, 2, 3]),
            .unwrapFileKey(Data(repeating: 9, count: 72), .classD, context: []), .fileHeaderTag([1, 2]),
            .isValidFileHeaderTag(Data(repeating: 1, count: 32), [5]), .verify, .changes(since: -1, limit: 100),
            .latestChangeSequence, .writeEach([.add(new), .update(query, changes), .delete(query)]), .writeEach([]),
        ]
        let requests: [DaemonRequest] =
            [.hello(version: DaemonCoding.version)] + keychainRequests.map { .backend($0) } + [
                .subscribe, .registerApp(path: "/bin/app", entitlements: Data(), allowsInsecureExecution: true),
                .unregisterApp(path: "/bin/app"), .listApps, .describe, .ping,
                .sync(Data("{}".utf8), reportsProgress: true), .beginWriteSession, .endWriteSession(commit: false),
            ]
        for request in requests {
            for envelope in [
                DaemonEnvelope(request: request), DaemonEnvelope(user: 1000, caller: caller, request: request),
                DaemonEnvelope(caller: Caller.administrator(defaultGroup: "TEAM.admin"), request: request),
                DaemonEnvelope(
                    user: 7, forwarded: ForwardedProcess(pid: 4_194_304, startTime: .max, groups: [0, .max]),
                    request: request),
            ] {
                #expect(try survivesRoundTrip(envelope))
            }
        }
        var status = try engine.keybagStatus()
        status.retryAfter = Date(timeIntervalSinceReferenceDate: 12.5)
        status.eraseAfter = 10
        var report = try engine.verify()
        report.damagedItems = [.init(persistentReference: item.persistentReference, rowID: 3, problem: "p")]
        report.problems = ["a problem"]
        let keychainReplies: [BackendReply] = [
            .written(WriteResult(items: [item], changeSequence: 3)),
            .written(WriteResult(items: [], changeSequence: 0)),
            .items(try engine.copyMatching(query, for: caller)), .items([]), .keybagStatus(try engine.keybagStatus()),
            .keybagStatus(status), .done, .bool(false), .bool(true), .data(Data()), .key(try SecretKey.random()),
            .report(report), .report(try engine.verify()),
            .changes(try engine.changes(since: 0, for: caller, limit: 10)),
            .sequence(Int64.max),
            .writes([.success(WriteResult(items: [item], changeSequence: 4)), .failure(EngineError(.param, "p"))]),
        ]
        let replies: [DaemonReply] =
            [.welcome(version: DaemonCoding.version)] + keychainReplies.map { .backend($0) } + [
                .apps([
                    RegisteredApp(
                        path: "/bin/app", sha256: "ab", applicationIdentifier: "TEAM.app", accessGroups: ["g"],
                        allowsInsecureExecution: false)
                ]),
                .description(
                    DaemonDescription(uid: 1000, applicationIdentifier: "a", accessGroups: [], isRegisteredApp: true)),
                .changed, .failure(EngineError(.itemNotFound, "no item")), .progress(stage: 1, done: 2, total: 3),
                .failure(EngineError.resyncNeeded(after: 3, oldestAvailable: 9)),
                .failure(EngineError.authNeeded([.passcode, .applicationPassword], "the item needs authentication")),
            ]
        for reply in replies {
            #expect(try survivesRoundTrip(reply))
        }
    }

    @Test("An erase threshold as protocol 3's first clients sent it (tag 12, a count alone) is refused as unknown")
    func eraseThresholdWithoutPasscode() throws {
        var writer = WireWriter()
        writer.byte(0)  // no user, no caller
        writer.byte(12)  // setEraseAfter, the count alone
        writer.int(10)
        #expect(refusal(DaemonEnvelope.self, writer.bytes)?.contains("a request of unknown kind 12") == true)
    }

    @Test("Cut anywhere, or with bytes after it, a message is refused with errSecParam")
    func truncated() throws {
        let item = NewItem(itemClass: .genericPassword, attributes: [.account: .string("a")], data: Data([1]))
        let bytes = try DaemonCoding.encode(DaemonEnvelope(caller: caller, request: .backend(.add(item))))
        for end in 0..<bytes.count {
            #expect(refusal(DaemonEnvelope.self, Array(bytes[..<end])) != nil)
        }
        #expect(refusal(DaemonEnvelope.self, bytes) == nil)
        #expect(refusal(DaemonEnvelope.self, bytes + [0])?.contains("1 bytes follow the message") == true)
    }

    /// An `add` of a generic password with these attributes (name, text) as sent on the wire.
    private func add(_ attributes: [(String, String)], flag: UInt8 = 0) -> [UInt8] {
        var writer = WireWriter()
        writer.byte(0)  // no user, no caller
        writer.byte(1)  // add
        writer.string("genp")
        writer.uint32(UInt32(attributes.count))
        for (name, text) in attributes {
            writer.string(name)
            writer.byte(1)  // text
            writer.string(text)
        }
        writer.data(Data())
        writer.byte(flag)
        writer.byte(0)  // no authentication
        return writer.bytes
    }

    @Test(
        "Text that is not UTF-8 is refused, whatever its repair would look like",
        arguments: [
            [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xC0, 0x80], [0x80], [0xE2, 0x82], [0xFF], [0xEF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0x61, 0xF0, 0x9F, 0x98],
        ] as [[UInt8]])
    func textThatIsNotUTF8(_ bad: [UInt8]) {
        var writer = WireWriter()
        writer.uint32(UInt32(bad.count))
        var reader = WireReader(writer.bytes + bad)
        #expect(throws: EngineError.self) { try reader.string() }
        var good = WireWriter()
        good.string("é\u{FFFD}😀")
        var goodReader = WireReader(good.bytes)
        #expect((try? goodReader.string()) == "é\u{FFFD}😀")
    }

    @Test("Repeated or unknown attributes, bad flags, text and kinds: refused by name")
    func refusals() throws {
        #expect(refusal(DaemonEnvelope.self, add([("acct", "a"), ("svce", "b")])) == nil)
        #expect(
            refusal(DaemonEnvelope.self, add([("acct", "a"), ("acct", "b")]))?.contains("acct appears twice") == true)
        #expect(refusal(DaemonEnvelope.self, add([("zzzz", "a")]))?.contains("\"zzzz\" is no AttributeKey") == true)
        #expect(refusal(DaemonEnvelope.self, add([("acct", "a")], flag: 2))?.contains("a flag of 2") == true)
        var badText = add([("acct", "ab")])
        badText[badText.count - 8] = 0xC3  // the value's first byte, then the second
        badText[badText.count - 7] = 0x28
        #expect(refusal(DaemonEnvelope.self, badText)?.contains("not UTF-8") == true)
        #expect(refusal(DaemonEnvelope.self, [0, 200])?.contains("a request of unknown kind 200") == true)
        // A batch of writes holds item writes only: not a lock, and not another batch (no nesting to recurse on).
        for inner in [RequestTag.lock, .writeEach] {
            var batch = WireWriter()
            batch.byte(0)
            batch.byte(RequestTag.writeEach.rawValue)
            batch.uint32(1)
            batch.byte(inner.rawValue)
            if inner == .writeEach { batch.uint32(0) }
            #expect(refusal(DaemonEnvelope.self, batch.bytes)?.contains("not an item write") == true)
        }
        #expect(refusal(DaemonEnvelope.self, [8, 7])?.contains("unknown flags 8") == true)
        // A forwarded process is a positive pid.
        #expect(refusal(DaemonEnvelope.self, [4, 0, 0, 0, 0])?.contains("pid 0") == true)
        #expect(refusal(DaemonReply.self, [200])?.contains("a reply of unknown kind 200") == true)
        // A count of billions in a few bytes is refused before anything is reserved.
        #expect(
            refusal(DaemonEnvelope.self, [0, 2, 255, 255, 255, 255])?.contains("more than the message holds") == true)
        // A date that is not a finite number: the keybag status's retryAfter, before its eraseAfter (absent) and
        // its lock epoch (8 bytes).
        var status = try Engine(storage: .inMemory).keybagStatus()
        status.retryAfter = Date(timeIntervalSinceReferenceDate: 1)
        status.eraseAfter = nil
        var bytes = try DaemonCoding.encode(DaemonReply.backend(.keybagStatus(status)))
        withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) {
            bytes.replaceSubrange(bytes.count - 17..<bytes.count - 9, with: $0)
        }
        #expect(refusal(DaemonReply.self, bytes)?.contains("not a finite number") == true)
        // An error of a status this version does not know.
        var failure = try DaemonCoding.encode(DaemonReply.failure(EngineError(.param, "m")))
        failure.replaceSubrange(1..<9, with: [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(refusal(DaemonReply.self, failure)?.contains("unknown status 1") == true)
    }

    @Test("A version-1 (JSON) hello is recognised and answered in JSON, naming both versions")
    func version1() throws {
        let hello = Array(#"{"request":{"hello":{"version":1}}}"#.utf8)
        #expect(DaemonCoding.isVersion1(hello))
        #expect(!DaemonCoding.isVersion1(try DaemonCoding.encode(DaemonEnvelope(request: .hello(version: 2)))))
        let answer = try #require(version1FailureMessage(DaemonCoding.version1Refusal(of: hello)))
        #expect(answer.contains("protocol version \(DaemonCoding.version)") && answer.contains("hello(version: 1)"))
    }
}

/// A client of this version meeting a version-1 daemon (which answers every message in JSON).
@Suite("keychaind's wire form: a client meets a version-1 daemon")
struct WireVersionTests {
    @Test("The client's handshake names both versions instead of calling the answer malformed")
    func clientMeetsVersion1() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("v1.sock").path
        let listener = try SeqPacketSocket.listen(at: path, mode: 0o600)
        // As a version-1 daemon does, for each connection (the client makes two: its first request rides behind the
        // hello, and the reset that the unread request causes makes it ask again without): the first message is
        // answered with a refusal in JSON, and the connection closed with whatever else the client sent unread.
        let served = Thread {
            for _ in 0..<2 {
                guard let connection = try? listener.accept() else { return }
                _ = try? connection.receive()
                let refusal = #"{"failure":{"_0":{"code":-50,"message":"a malformed keychaind message"}}}"#
                try? connection.send(Array(refusal.utf8))
                connection.close()
            }
        }
        served.start()
        var refused: EngineError?
        do throws(EngineError) {
            _ = try DaemonClient(socketPath: path).keybagStatus()
        } catch {
            refused = error
        }
        #expect(refused?.code == .notAvailable)
        #expect(refused?.message.contains("speaks protocol version 1") == true, "\(String(describing: refused))")
        #expect(refused?.message.contains(path) == true)
        listener.close()
    }
}
