// daemon-fuzz: a libFuzzer target for keychaind's wire (`make fuzz-daemon`).
//
// Each input is one of three kinds, chosen by its first byte:
//
// - raw: the rest of the input as one message, decoded as a request (`DaemonEnvelope`) and as a reply
//   (`DaemonReply`).
// - edited: one of a set of valid messages (every request and every reply, with real items, statuses, reports
//   and change pages from an in-memory engine) with up to 6 input-chosen edits: wire fragments put in, bytes flipped,
//   cut, deleted or repeated.
// - packets: up to 8 raw packets (an input-chosen flag byte, a length up to past the protocol's packet size, stray
//   descriptors attached) sent over a `SOCK_SEQPACKET` socket pair and read back by `SeqPacketSocket.receive`,
//   after one whole message sent by `SeqPacketSocket.send` and received back unchanged.
//
// What must hold, or the harness traps (that trap is the finding): a decode either succeeds, and the value
// encodes and decodes to itself, or fails with errSecParam and a message; a decoded request that is a keychain
// request is carried out by keychaind's own dispatcher (KeychainDaemon's `RequestDispatcher`, with its user
// keychains on disk in a temporary state directory, its app registry, quotas and each user's group committer) for
// root, and answers with a reply that encodes;
// reassembly returns exactly the messages a model of the packet protocol predicts, refuses the rest with the
// predicted kind of error, names the sending process, and leaks no descriptor.
//
// With `--sanitize=fuzzer` libFuzzer supplies `main` (so the target has no main.swift). `LLVMFuzzerInitialize`
// writes the valid messages as seeds into an empty corpus directory, so a first run starts from them.

import Foundation
import KeychainCore
import KeychainDaemon
import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the fuzzer's bytes as a stream of choices; once they run out every choice is zero.
private struct Choices {
    let bytes: [UInt8]
    var position = 0

    mutating func next() -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func next16() -> Int { next() | next() << 8 }

    mutating func bytes(upTo limit: Int) -> [UInt8] {
        (0..<(next() % (limit + 1))).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    var rest: [UInt8] { Array(bytes[min(position, bytes.count)...]) }
}

/// The caller the daemon's root principal acts as when an envelope names none.
private let benchCaller = Caller(applicationIdentifier: "TEAM.fuzz", accessGroups: ["TEAM.fuzz", "group.shared"])

/// Every request and every reply, encoded: the valid messages the edits start from and the seeds.
private let samples: [[UInt8]] = makeSamples()

private func makeSamples() -> [[UInt8]] {
    do {
        let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
        let newItem = NewItem(
            itemClass: .genericPassword,
            attributes: [
                .service: .string("svc"), .account: .string("acct"), .label: .string("Label"),
                .creator: .integer(0x6162_6364), .accessible: .string("ak"),
            ],
            data: Data("secret".utf8))
        let item = try engine.add(newItem, for: benchCaller)
        let query = ItemQuery(
            itemClass: .genericPassword, attributes: [.service: .string("svc")], synchronizable: .any,
            persistentReference: item.persistentReference, limit: .upTo(3), returning: [.data, .attributes],
            caseInsensitive: true)
        let changes = ItemChanges(attributes: [.comment: .string("c")], data: Data("new".utf8))
        let found = try engine.copyMatching(query, for: benchCaller)
        let status = try engine.keybagStatus()
        let report = try engine.verify()
        let batch = try engine.changes(since: 0, for: benchCaller, limit: 10)
        let (passcode, other) = (try Passcode(copying: "1234"), try Passcode(copying: "5678"))
        let keychainRequests: [BackendRequest] = [
            .add(newItem), .addBatch([newItem, newItem]), .addOrUpdate(newItem), .copyMatching(query),
            .update(query, changes), .delete(query), .keybagStatus, .unlock(passcode), .checkPasscode(passcode), .lock,
            .setPasscode(passcode, current: nil), .setPasscode(other, current: passcode),
            .removePasscode(current: passcode), .setEraseAfter(10, passcode: passcode),
            .setEraseAfter(10, passcode: nil), .canOpenFiles(.classB),
            .wrapFileKey(try SecretKey(copying: Array(repeating: 7, count: 32)), .classA, context: [1, 2, 3]),
            .unwrapFileKey(Data(repeating: 9, count: 72), .classD, context: [4]), .fileHeaderTag([1, 2, 3, 4]),
            .isValidFileHeaderTag(Data(repeating: 1, count: 32), [5, 6]), .verify, .changes(since: 0, limit: 100),
            .latestChangeSequence, .writeEach([.add(newItem), .update(query, changes), .delete(query)]),
            .useKey(
                ItemQuery(itemClass: .key, attributes: [.applicationTag: .data(Data("tag".utf8))]),
                KeyUse(.sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data("message".utf8))),
            .writeAll([.add(newItem), .delete(query)]),
            .generateKey(
                KeyGeneration(
                    keyType: 73, sizeInBits: 256,
                    privateKey: NewItem(itemClass: .key, attributes: [.isExtractable: .bool(false)]),
                    publicKey: NewItem(itemClass: .key))),
        ]
        let requests: [DaemonRequest] =
            [.hello(version: DaemonCoding.version)] + keychainRequests.map { .backend($0) } + [
                .subscribe,
                .registerApp(
                    path: "/usr/bin/app", entitlements: Data("<plist/>".utf8), allowsInsecureExecution: false),
                .unregisterApp(path: "/usr/bin/app"), .listApps, .describe, .ping,
                .sync(Data(#"{"status":{}}"#.utf8), reportsProgress: true), .beginWriteSession,
                .endWriteSession(commit: true),
            ]
        let keychainReplies: [BackendReply] = [
            .written(WriteResult(items: [item], changeSequence: 7)), .items(found), .keybagStatus(status), .done,
            .bool(true), .data(Data(repeating: 3, count: 40)), .key(try SecretKey.random()), .report(report),
            .changes(batch), .sequence(42),
            .writes([
                .success(WriteResult(items: [item], changeSequence: 9)), .failure(EngineError(.duplicateItem, "dup")),
            ]),
        ]
        let replies: [DaemonReply] =
            [.welcome(version: DaemonCoding.version)] + keychainReplies.map { .backend($0) } + [
                .apps([
                    RegisteredApp(
                        path: "/usr/bin/app", sha256: String(repeating: "ab", count: 32),
                        applicationIdentifier: "TEAM.app", accessGroups: ["TEAM.app", "group.shared"],
                        allowsInsecureExecution: true)
                ]),
                .description(
                    DaemonDescription(
                        uid: 1000, applicationIdentifier: "TEAM.app", accessGroups: ["TEAM.app"],
                        isRegisteredApp: true)),
                .changed, .failure(EngineError(.itemNotFound, "no item matched")),
                .progress(stage: 1, done: 3, total: 9),
            ]
        let envelopes =
            [
                DaemonEnvelope(user: 1000, caller: benchCaller, request: .backend(.copyMatching(query))),
                DaemonEnvelope(
                    user: 0, caller: Caller.administrator(defaultGroup: "TEAM.admin"),
                    request: .backend(.add(newItem))),
                // A registered service asking for another process (protocol 6; its groups since 7).
                DaemonEnvelope(
                    forwarded: ForwardedProcess(pid: 4242, startTime: 123_456, groups: [1000, 27]),
                    request: .backend(.copyMatching(query))),
            ]
        let encoded = try requests.map { request throws(EngineError) in
            try DaemonCoding.encode(DaemonEnvelope(request: request))
        }
        // Every kind of message has a sample: a new request or reply that lacks one stops the harness, naming it.
        let requestTags = Set(encoded.map { $0[1] })
        let replyBytes = try replies.map { reply throws(EngineError) in try DaemonCoding.encode(reply) }
        let replyTags = Set(replyBytes.map { $0[0] })
        for tag in RequestTag.allCases where tag != .retiredSetEraseAfter && !requestTags.contains(tag.rawValue) {
            preconditionFailure("the fuzz harness has no sample of the request \(tag)")
        }
        for tag in ReplyTag.allCases where !replyTags.contains(tag.rawValue) {
            preconditionFailure("the fuzz harness has no sample of the reply \(tag)")
        }
        return try encoded
            + envelopes.map { envelope throws(EngineError) in try DaemonCoding.encode(envelope) }
            + replyBytes
    } catch {
        preconditionFailure("the fuzz harness could not make its sample messages: \(error)")
    }
}

/// libFuzzer's start hook: seeds an empty corpus directory (the first argument that is a directory) with the
/// sample messages, each as a raw input and as an edited input with no edits.
@_cdecl("LLVMFuzzerInitialize")
public func daemonFuzzInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>
) -> Int32 {
    let arguments = (0..<Int(argc.pointee)).compactMap { argv.pointee[$0].map { String(cString: $0) } }
    var isDirectory: ObjCBool = false
    guard
        let corpus = arguments.dropFirst().first(where: {
            !$0.hasPrefix("-") && FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }),
        (try? FileManager.default.contentsOfDirectory(atPath: corpus))?.isEmpty == true
    else { return 0 }
    for (index, sample) in samples.enumerated() {
        let raw = URL(fileURLWithPath: corpus).appendingPathComponent("seed-raw-\(index)")
        let edited = URL(fileURLWithPath: corpus).appendingPathComponent("seed-edited-\(index)")
        try? Data([0] + sample).write(to: raw)
        try? Data([1, UInt8(index), 0]).write(to: edited)
    }
    return 0
}

/// libFuzzer's entry point: one input, used as described at the top of this file.
@_cdecl("LLVMFuzzerTestOneInput")
public func daemonFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = Choices(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    switch choices.next() % 3 {
    case 0:
        checkDecoding(choices.rest)
    case 1:
        let sample = samples[choices.next() % samples.count]
        checkDecoding(edited(sample, &choices))
    default:
        var exercise = PacketExercise(&choices)
        exercise.run()
    }
    return 0
}

// MARK: Decoding

/// Decodes `bytes` both ways and checks what must hold of each outcome.
private func checkDecoding(_ bytes: [UInt8]) {
    if let envelope = decoded(DaemonEnvelope.self, bytes) {
        checkRoundTrip(envelope)
        if case .backend = envelope.request { carryOut(envelope, size: bytes.count) }
    }
    if let reply = decoded(DaemonReply.self, bytes) { checkRoundTrip(reply) }
}

private func decoded<Value: DaemonMessage>(_ type: Value.Type, _ bytes: [UInt8]) -> Value? {
    do throws(EngineError) {
        return try DaemonCoding.decode(type, from: bytes)
    } catch {
        precondition(error.code == .param, "a malformed message failed with \(error.code), not errSecParam")
        precondition(error.message.contains("malformed keychaind message"), "a decode failed with: \(error.message)")
        return nil
    }
}

private func checkRoundTrip<Value: DaemonMessage>(_ value: Value) {
    do throws(EngineError) {
        let bytes = try DaemonCoding.encode(value)
        let again = try DaemonCoding.encode(try DaemonCoding.decode(Value.self, from: bytes))
        precondition(again == bytes, "a decoded \(Value.self) does not survive encoding: \(value)")
    } catch {
        preconditionFailure("a decoded \(Value.self) cannot be encoded and decoded again: \(error)")
    }
}

/// keychaind's dispatch as the daemon runs it: user keychains in a temporary state directory (removed at exit),
/// the app registry, quotas, and the group committer every write of a user goes through.
private let stateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "daemon-fuzz-\(getpid())", isDirectory: true)

private let dispatcher: RequestDispatcher = {
    let directory = stateDirectory
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: stateDirectory) }
        let options = try DaemonOptions.parse(["--state-directory", directory.path])
        let keychains = UserKeychains(
            stateDirectory: directory, options: EngineOptions(passcodeCost: .minimum))
        let registry = try AppRegistry(path: directory.appendingPathComponent("apps.json").path)
        return RequestDispatcher(keychains: keychains, registry: registry, quotas: UserQuotas(options: options))
    } catch {
        preconditionFailure("keychaind's dispatcher could not be made: \(error)")
    }
}()

/// Carries a decoded keychain request out through keychaind's dispatcher, for root (who may name the user and the
/// caller); the reply must be one that can be sent.
private func carryOut(_ envelope: DaemonEnvelope, size: Int) {
    let reply = dispatcher.reply(to: envelope, from: .root, size: size)
    if case .failure(let error) = reply {
        precondition(!error.message.isEmpty, "a request failed (\(error.code)) without a message")
    }
    do throws(EngineError) {
        _ = try DaemonCoding.encode(reply)
    } catch {
        preconditionFailure("the reply to \(envelope.request.name) cannot be encoded: \(error)")
    }
}

/// Wire fragments that make a valid message almost valid (``WireWriter``'s form): flags and tags past the known
/// ones, numbers at the limits, a NaN and an infinite date, lengths and counts that run past the message or claim
/// billions, names the messages use, text that is not UTF-8.
private let tokens: [[UInt8]] = {
    func word(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    func count(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    func text(_ value: String) -> [UInt8] { count(UInt32(value.utf8.count)) + Array(value.utf8) }
    let names = ["genp", "inet", "acct", "svce", "agrp", "pdmn", "ak", "dku", "added", "xxxx", ""]
    return [[0], [1], [2], [3], [4], [5], [25], [26], [255]]
        + [
            word(0), word(UInt64.max), word(1 << 63), word(Double.nan.bitPattern), word(Double.infinity.bitPattern),
            count(0), count(1), count(UInt32.max), count(1 << 30), [0xC3, 0x28], count(2) + [0xC3, 0x28],
            Array(repeating: 0xAB, count: 16),
        ] + names.map(text)
}()

/// Up to 6 edits of a valid message.
private func edited(_ sample: [UInt8], _ choices: inout Choices) -> [UInt8] {
    var bytes = sample
    for _ in 0..<(choices.next() % 7) {
        let position = bytes.isEmpty ? 0 : choices.next16() % bytes.count
        let end = min(bytes.count, position + 1 + choices.next() % 16)
        switch choices.next() % 6 {
        case 0: bytes.replaceSubrange(position..<end, with: tokens[choices.next() % tokens.count])
        case 1: bytes.insert(contentsOf: tokens[choices.next() % tokens.count], at: position)
        case 2 where !bytes.isEmpty: bytes[position] ^= UInt8(max(1, choices.next()))
        case 3: bytes.removeSubrange(position..<end)
        case 4: bytes.insert(contentsOf: Array(bytes[position..<end]), at: position)
        default: bytes.insert(contentsOf: choices.bytes(upTo: 8), at: position)
        }
    }
    return bytes
}

// MARK: Packets

/// Raw packets written to one end of a socket pair and reassembled at the other, beside a model of the protocol.
private struct PacketExercise {
    /// One packet as sent: its bytes (flag first) and the descriptors attached.
    struct Packet {
        var bytes: [UInt8]
        var strayDescriptors: Int
    }

    /// What one `receive` call should give.
    enum Expected: Equatable {
        case message([UInt8])
        case closed
        case refused
    }

    var whole: [UInt8]
    var packets: [Packet] = []

    init(_ choices: inout Choices) {
        // A whole message of up to a few packets, sent and received as the client and daemon do.
        let size = choices.next() % 4 == 0 ? choices.next16() * 2 % (3 * SeqPacketSocket.packetPayload) : choices.next()
        let sample = samples[choices.next() % samples.count]
        whole = (0..<size).map { sample[$0 % sample.count] }
        // Raw packets, at most about 120 KB in all so the socket's buffer holds them without a reader.
        var total = 0
        for _ in 0..<(choices.next() % 9) {
            let flag = [0, 0, 1, 1, 1, 2, 255][choices.next() % 7]
            let length: Int
            switch choices.next() % 8 {
            case 0: length = 0
            case 1: length = SeqPacketSocket.packetPayload + 1
            case 2: length = SeqPacketSocket.packetPayload + 2
            case 3: length = SeqPacketSocket.packetPayload
            default: length = 1 + choices.next() % 64
            }
            guard total + length <= 120_000 else { break }
            total += length
            let payload = (0..<max(0, length - 1)).map { sample[($0 + choices.next()) % sample.count] }
            let bytes = length == 0 ? [] : [UInt8(flag)] + payload
            packets.append(
                Packet(bytes: bytes, strayDescriptors: choices.next() % 5 == 0 ? 1 + choices.next() % 12 : 0))
        }
    }

    /// How many stray descriptors fit in the receiver's 104-byte control buffer beside the credentials (32 bytes; a
    /// 16-byte header and 4 bytes a descriptor); a packet with more loses its credentials and must be refused. The
    /// raw packets carry no pidfd: the one the kernel attached to the whole message before them is kept for the
    /// packets that follow from this same running process.
    let fitting = 14

    /// What successive receives return, by the protocol: packets of at most one flag byte and `packetPayload`
    /// bytes, flag 1 for "more follows", 0 for "last", with no more descriptors attached than fit; a zero-length
    /// packet reads as the end of the stream.
    var model: [Expected] {
        var results: [Expected] = []
        var message: [UInt8] = []
        var inMessage = false
        for packet in packets {
            if packet.bytes.isEmpty {
                results.append(inMessage ? .refused : .closed)
                return results
            }
            guard packet.bytes.count <= SeqPacketSocket.packetPayload + 1, packet.strayDescriptors <= fitting else {
                return results + [.refused]
            }
            message += packet.bytes.dropFirst()
            inMessage = true
            switch packet.bytes[0] {
            case 0:
                results.append(.message(message))
                message = []
                inMessage = false
            case 1: continue
            default: return results + [.refused]
            }
        }
        return results + [inMessage ? .refused : .closed]
    }

    mutating func run() {
        let before = openDescriptorCount()
        do {
            var pair: [Int32] = [-1, -1]
            let made = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair)
            precondition(made == 0, "no socket pair: \(String(cString: strerror(errno)))")
            let sender = SeqPacketSocket(descriptor: pair[0])
            let receiver = SeqPacketSocket(descriptor: pair[1])
            do throws(EngineError) {
                try receiver.passCredentials()
            } catch {
                preconditionFailure("\(error)")
            }
            exchangeWhole(sender, receiver)
            for packet in packets { send(packet, on: sender.descriptor) }
            sender.shutDown()
            for expected in model {
                let outcome: Expected
                var refusal = ""
                do throws(EngineError) {
                    if let received = try receiver.receive() {
                        checkSender(received.sender)
                        outcome = .message(received.message)
                    } else {
                        outcome = .closed
                    }
                } catch {
                    precondition(error.code == .param, "reassembly failed with \(error.code): \(error.message)")
                    outcome = .refused
                    refusal = error.message
                }
                precondition(
                    outcome == expected, "reassembly gave \(outcome) (\(refusal)), the protocol says \(expected)")
                if outcome == .refused { break }
            }
        }
        precondition(openDescriptorCount() == before, "reassembly leaked descriptors")
    }

    /// One message through `send` and `receive`, which must arrive whole, from this process.
    private func exchangeWhole(_ sender: SeqPacketSocket, _ receiver: SeqPacketSocket) {
        do throws(EngineError) {
            try sender.send(whole)
            guard let received = try receiver.receive() else { preconditionFailure("a sent message read as closed") }
            precondition(received.message == whole, "a message of \(whole.count) bytes came back changed")
            checkSender(received.sender)
        } catch {
            preconditionFailure("a message of \(whole.count) bytes could not be sent and received: \(error)")
        }
    }

    private func checkSender(_ sender: MessageSender?) {
        guard let sender else { preconditionFailure("a message arrived without its sender's credentials") }
        precondition(sender.pid == getpid() && sender.uid == getuid(), "the message's sender is not this process")
    }

    /// Sends one raw packet, with `strayDescriptors` copies of standard input attached as `SCM_RIGHTS` (which the
    /// receiver must close).
    private func send(_ packet: Packet, on descriptor: Int32) {
        var bytes = packet.bytes
        // A control message laid out as CMSG_SPACE does it (the header, then the descriptors, padded to size_t).
        let header = MemoryLayout<cmsghdr>.size
        let length = header + packet.strayDescriptors * MemoryLayout<Int32>.size
        let alignment = MemoryLayout<Int>.size
        var control = [UInt8](repeating: 0, count: (length + alignment - 1) / alignment * alignment)
        control.withUnsafeMutableBytes { raw in
            var head = cmsghdr()
            head.cmsg_len = length
            head.cmsg_level = SOL_SOCKET
            head.cmsg_type = 1  // SCM_RIGHTS
            raw.storeBytes(of: head, as: cmsghdr.self)
            for index in 0..<packet.strayDescriptors {
                raw.storeBytes(of: STDIN_FILENO, toByteOffset: header + index * 4, as: Int32.self)
            }
        }
        let sent = bytes.withUnsafeMutableBytes { buffer in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    if packet.strayDescriptors > 0 {
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                    }
                    return Glibc.sendmsg(descriptor, &message, Int32(MSG_DONTWAIT))
                }
            }
        }
        precondition(sent == packet.bytes.count, "a packet could not be sent: \(String(cString: strerror(errno)))")
    }
}

/// How many descriptors this process has open.
private func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
}
