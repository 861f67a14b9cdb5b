// keychaind-probe: one operation on a keychaind socket, as an ordinary program of the user who runs it — the
// daemon, not the probe, decides who is calling. The identity tests install copies of it as registered apps
// (setgid, or not), run them as a test user, trace them, preload code into them and hand their connections on.
//
//     keychaind-probe SOCKET|fd:N|default COMMAND [ARGUMENT…]
//       describe                      who the daemon says is calling (and this process's AT_SECURE and tracer)
//       prompt                        asks for a passcode as the library does (terminal, else pinentry); prints
//                                     the outcome and the secret's length, never the secret
//       session                       reads commands (`add ACCOUNT SECRET`, `get ACCOUNT`, `describe`, `prompt`)
//                                     from standard input, one a line, each answered by one line, until its end
//       add ACCOUNT SECRET [GROUP]    adds a generic password (service "probe"), to GROUP when given
//       add-large ACCOUNT BYTES       adds a generic password of BYTES random bytes
//       register PATH ENTITLEMENTS [--allow-insecure-exec]
//                                     registers an app (root only)
//       get ACCOUNT [GROUP]           reads a generic password's secret, searching GROUP when given
//       unlock PASSCODE               unlocks the user's keychain
//       erase-after N [PASSCODE]      sets the erase threshold, vouched for by PASSCODE when given
//       verify                        verifies the whole keychain (its item count)
//       list-apps                     the registered apps' paths
//       latest-sequence               where the caller's change feed starts
//       changes SEQUENCE              the feed after SEQUENCE: how many changes, and the cursor
//       watch PROGRAM ARG…            subscribes to change notices, runs PROGRAM ARG… to its end, then adds an
//                                     item of its own: the notices counted before and after that add
//       protect-file PATH TEXT        writes a protected file (class C) holding TEXT
//       read-protected PATH           reads a protected file
//       get-as-user UID ACCOUNT       the same on another user's keychain (the envelope names UID)
//       exec-then PROGRAM ARG…        keeps the connection and execs PROGRAM fd:N ARG… in its place
//       spawn-then PROGRAM ARG…       a child PROGRAM fd:N ARG… shares the connection; then describe again
//       send-then-exec ACCOUNT PROGRAM ARG…
//                                     sends a get of ACCOUNT and, before any reply, execs PROGRAM ARG…
//       steal-by-exec ACCOUNT PROGRAM ARG…
//                                     the exec race: a child sends a get of ACCOUNT on this connection, then
//                                     execs PROGRAM ARG… (a registered app); this process reads the reply
//       for PID[:START[:GROUPS]] COMMAND [ARGUMENT…]
//                                     COMMAND asked for the process PID (a service speaking for its caller), named
//                                     by its start time (read from /proc unless START is given) and the groups it
//                                     reached the service with (GROUPS, comma-separated; else its groups now)
//       flood UNLOCKERS IDLE PASSCODE [REQUESTERS]
//                                     one user flooding the daemon (Flood.swift): parallel unlocks, idle
//                                     connections, lookups; prints one line once flooding, then runs until killed
//     pinentry (the probe run under that name, as a test mounts it over /usr/bin/pinentry)
//                                     writes its effective and real group, supplementary groups and environment to
//                                     ./pinentry-record, then speaks Assuan as pinentry and answers GETPIN with
//                                     `hunter2`: what a pinentry started by a setgid app runs with
//     keychaind-probe - sleep SECONDS  says so on one line, then sleeps (an app that stays put)
//     keychaind-probe - read-file PATH reads a file (the tests' check that a user cannot read their keychain)
//     keychaind-probe - liveness PID   keychaind's liveness check of PID through a pidfd, then again once PID
//                                      has exited: {"running": …, "stillRunning": …} (null: it cannot say)
//
// `fd:N` is a connection inherited from `exec-then` or `spawn-then`, past its handshake. `default` is the keychain
// the library picks for this process when it names none (`KeychainStorage.defaultStorage()`: keychaind at its
// default socket, or an embedded keychain), as any app's is; its lines name it ("storage"). Every outcome is one JSON
// line on standard output: {"status": <OSStatus, 0 on success>, …}. Exit status 0 unless the arguments are
// malformed (then 2).

import FileProtection
import Foundation
import KeychainClient
import KeychainCore
import KeychainDaemon
import KeychainPrompts
import KeychainWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A probe's outcome, printed as one JSON line (written at once, so lines of a parent and its child stay whole).
func emit(_ fields: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func emit(_ error: EngineError) {
    emit(["status": Int(error.status), "message": error.message])
}

func usage(_ why: String) -> Never {
    FileHandle.standardError.write(Data("keychaind-probe: \(why) (see the comment at the top of main.swift)\n".utf8))
    exit(2)
}

/// A connection to the daemon: a ``DaemonClient`` on a socket path, or a raw connection kept from a parent.
enum Connection {
    case client(DaemonClient)
    case socket(SeqPacketSocket)
    /// The process's default keychain, whatever backend serves it, for the caller its entitlements name.
    case backend(any KeychainBackend, Caller, KeychainStorage)

    /// The keychain the library gives this process by default.
    static func processDefault() throws(EngineError) -> Connection {
        let storage = KeychainStorage.processDefault
        return .backend(try KeychainBackends.backend(for: storage), try Caller.current(), storage)
    }

    /// A connection of this process's own on `path`, past its handshake, that can be handed on.
    static func raw(_ path: String) throws(EngineError) -> SeqPacketSocket {
        let socket = try SeqPacketSocket.connect(to: path)
        let reply = try exchange(.hello(version: DaemonCoding.version), on: socket)
        guard case .welcome = reply else { throw EngineError(.internalComponent, "no welcome: \(reply)") }
        return socket
    }

    /// One request and its reply.
    func call(_ request: DaemonRequest, user: UInt32? = nil) throws(EngineError) -> DaemonReply {
        switch self {
        case .client(let client):
            return try (user.map { DaemonClient(socketPath: client.socketPath, user: $0) } ?? client).send(request)
        case .socket(let socket):
            let reply = try Self.exchange(request, user: user, on: socket)
            if case .failure(let error) = reply { throw error }
            return reply
        case .backend(let backend, let caller, _):
            if let client = backend as? DaemonClient { return try Connection.client(client).call(request, user: user) }
            guard case .backend(let request) = request else {
                throw EngineError(.param, "\(request.name) needs keychaind")
            }
            return .backend(try backend.perform(request, for: caller))
        }
    }

    /// Where the keychain is, for the lines printed.
    var storage: String {
        switch self {
        case .client(let client): "keychaind at \(client.socketPath)"
        case .socket: "an inherited connection"
        case .backend(_, _, .directory(let url)): "embedded (\(url.path))"
        case .backend(_, _, let storage): "\(storage)"
        }
    }

    static func exchange(
        _ request: DaemonRequest, user: UInt32? = nil, on socket: SeqPacketSocket
    ) throws(EngineError) -> DaemonReply {
        try socket.send(DaemonCoding.encode(DaemonEnvelope(user: user, request: request)))
        return try receive(on: socket)
    }

    static func receive(on socket: SeqPacketSocket) throws(EngineError) -> DaemonReply {
        guard let received = try socket.receive() else {
            throw EngineError(.notAvailable, "the daemon closed the connection")
        }
        return try DaemonCoding.decode(DaemonReply.self, from: received.message)
    }
}

func attributes(_ account: String) -> ItemAttributes {
    [.account: .string(account), .service: .string("probe")]
}

func getRequest(_ account: String, group: String?) -> DaemonRequest {
    var query = attributes(account)
    if let group { query[.accessGroup] = .string(group) }
    return .backend(.copyMatching(ItemQuery(itemClass: .genericPassword, attributes: query, returning: .data)))
}

/// Prints a get's reply: the secret, or the status.
func emitSecret(_ reply: DaemonReply) {
    switch reply {
    case .backend(.items(let items)) where !items.isEmpty:
        emit(["status": 0, "secret": String(decoding: items[0].data ?? Data(), as: UTF8.self)])
    case .failure(let error): emit(error)
    default: emit(["status": Int(EngineError.Code.internalComponent.rawValue), "message": "unexpected \(reply)"])
    }
}

/// `AT_SECURE` as the kernel gave it to this process. Glibc's module does not export getauxval, and a secure
/// process may not read its own `/proc/self/auxv`, so the function is looked up by name.
func isSecureExecution() -> Bool {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getauxval") else { return false }
    let getauxval = unsafeBitCast(symbol, to: (@convention(c) (UInt) -> UInt).self)
    return getauxval(23) != 0  // AT_SECURE
}

/// This process's own view of how it was started: `AT_SECURE`, and whether something traces it.
func selfFacts() -> [String: Any] {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }
        .map { $0.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces) }
    return [
        "secure": isSecureExecution(), "traced": tracer.map { $0 != "0" } ?? false,
        "pid": Int(getpid()), "egid": Int(getegid()),
    ]
}

func describe(_ connection: Connection) throws(EngineError) {
    if case .backend(let backend, _, _) = connection, !(backend is DaemonClient) {
        return emit(selfFacts().merging(["status": 0, "storage": connection.storage]) { $1 })
    }
    guard case .description(let seen) = try connection.call(.describe) else {
        throw EngineError(.internalComponent, "describe answered with another reply")
    }
    emit(
        selfFacts().merging([
            "status": 0, "uid": Int(seen.uid), "applicationIdentifier": seen.applicationIdentifier,
            "accessGroups": seen.accessGroups, "registered": seen.isRegisteredApp, "storage": connection.storage,
        ]) { $1 })
}

/// Asks for a passcode with the prompter the library uses (the controlling terminal, else pinentry).
func prompt() {
    switch SystemPrompter().ask(SecretPromptRequest(operationPrompt: "probe")) {
    case .entered(let secret): emit(["status": 0, "outcome": "entered", "length": secret.count])
    case .canceled: emit(["status": Int(EngineError.Code.userCanceled.rawValue), "outcome": "canceled"])
    case .unavailable(let reason):
        emit([
            "status": Int(EngineError.Code.interactionNotAllowed.rawValue), "outcome": "unavailable", "message": reason,
        ])
    }
}

/// Runs the commands read from standard input on one connection, each answered by one line, so a test can change
/// the world (stop or start a daemon) between two calls of one process.
func session(_ connection: Connection) {
    while let line = readLine() {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { continue }
        do throws(EngineError) {
            try perform(command, Array(words.dropFirst()), on: connection)
        } catch {
            emit(error)
        }
    }
}

/// The connection's descriptor made inheritable, and the argument vector that names it to the program.
func handOn(_ socket: SeqPacketSocket, _ program: String, _ arguments: [String]) -> [String] {
    _ = fcntl(socket.descriptor, F_SETFD, 0)
    return [program, "fd:\(socket.descriptor)"] + arguments
}

/// A C argument vector (or environment) for exec and spawn; it lives until the process execs or exits.
func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
    strings.map { strdup($0) } + [nil]
}

func execute(_ arguments: [String]) -> Never {
    let vector = cStrings(arguments)
    execv(arguments[0], vector)
    usage("cannot exec \(arguments[0]): \(String(cString: strerror(errno)))")
}

/// Starts `arguments` as a child (standard output `output` when given); its pid.
func spawn(_ arguments: [String], output: Int32? = nil) -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let output { posix_spawn_file_actions_adddup2(&actions, output, 1) }
    var pid: pid_t = 0
    let vector = cStrings(arguments)
    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, vector, environ)
    guard spawned == 0 else { usage("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
    return pid
}

func wait(for pid: pid_t) {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
}

/// The exec race: the message of a process that was not yet the registered app, checked by the daemon once it
/// is. A large reply keeps the daemon's thread for this connection busy sending (this process does not read it
/// yet), so the child's message waits in the socket until the child has surely become the app; then both replies
/// are read.
func stealByExec(_ socket: SeqPacketSocket, _ account: String, _ program: [String]) throws(EngineError) {
    let ballast = "steal-ballast-\(getpid())"
    // A megabyte is several times what the socket buffers hold.
    let item = NewItem(
        itemClass: .genericPassword, attributes: attributes(ballast), data: Data(repeating: 0x5a, count: 1 << 20))
    guard case .backend(.written) = try Connection.socket(socket).call(.backend(.add(item))) else {
        throw EngineError(.internalComponent, "the ballast was not added")
    }
    try socket.send(DaemonCoding.encode(DaemonEnvelope(request: getRequest(ballast, group: nil))))
    var pipe: [Int32] = [0, 0]
    guard Glibc.pipe(&pipe) == 0 else { throw EngineError(.ioError, "no pipe") }
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let child = spawn(handOn(socket, me, ["send-then-exec", account] + program), output: pipe[1])
    close(pipe[1])
    defer {
        kill(child, SIGKILL)
        wait(for: child)
    }
    // The app prints a line once it runs: the child's message was sent before, and is still unread.
    var byte: UInt8 = 0
    guard read(pipe[0], &byte, 1) == 1 else { throw EngineError(.internalComponent, "the child never ran the app") }
    guard case .backend(.items) = try Connection.receive(on: socket) else {
        throw EngineError(.internalComponent, "the ballast was not read back")
    }
    emitSecret(try Connection.receive(on: socket))
}

/// Notices counted while `program` runs and settles, then after an add of this program's own (the subscription's
/// proof of life): a program should hear of its own writes, and of no one else's.
func watch(_ client: DaemonClient, then program: [String]) throws(EngineError) {
    let notices = Mutex(0)
    let observation = try client.observeChanges { notices.withLock { $0 += 1 } }
    defer { observation.cancel() }
    wait(for: spawn(program))
    // Time for a notice of the program's writes to arrive, were one sent (they come within milliseconds).
    Thread.sleep(forTimeInterval: 0.5)
    let before = notices.withLock { $0 }
    let own = NewItem(itemClass: .genericPassword, attributes: attributes("watcher-\(getpid())"), data: Data("w".utf8))
    _ = try client.add(own, for: DaemonCallers.unregistered)
    for _ in 0..<1_000 where notices.withLock({ $0 }) == before { Thread.sleep(forTimeInterval: 0.01) }
    Thread.sleep(forTimeInterval: 0.2)
    emit(["status": 0, "before": before, "after": notices.withLock { $0 } - before])
}

/// Runs a protected-file operation, printing its outcome.
func protectedFile(_ body: () throws(FileProtectionError) -> [String: Any]) {
    do throws(FileProtectionError) {
        emit(["status": 0].merging(try body()) { $1 })
    } catch {
        emit(["status": Int(error.status), "message": error.message])
    }
}

func readFile(_ path: String) {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else {
        let code = errno
        emit(["status": Int(EngineError.Code.writePermission.rawValue), "errno": Int(code), "message": "\(path)"])
        return
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(descriptor, &buffer, buffer.count)
    close(descriptor)
    emit(["status": 0, "bytes": count])
}

func run(_ arguments: [String]) throws(EngineError) {
    guard arguments.count >= 2 else { usage("no socket and command") }
    let target = arguments[0]
    let command = arguments[1]
    let rest = Array(arguments.dropFirst(2))
    switch (command, rest.count) {
    case ("sleep", 1):
        emit(["status": 0, "sleeping": true])
        sleep(UInt32(rest[0]) ?? 5)
        return
    case ("read-file", 1):
        return readFile(rest[0])
    case ("liveness", 1):
        guard let pid = Int32(rest[0]), let process = ProcessHandle.open(pid: pid) else {
            usage("no process \(rest[0]) to open")
        }
        let running = process.isRunning
        var exited = pollfd(fd: process.descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&exited, 1, 60_000)
        emit(["status": 0, "running": running ?? NSNull(), "stillRunning": process.isRunning ?? NSNull()])
        return
    case ("flood", 3...4):
        try flood(target, rest)
    default: break
    }
    let connection: Connection
    if target == "default" {
        connection = try Connection.processDefault()
    } else if target.hasPrefix("fd:"), let descriptor = Int32(target.dropFirst(3)) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        connection = .socket(SeqPacketSocket(descriptor: descriptor))
    } else if command.hasSuffix("-then") || command == "steal-by-exec" {
        connection = .socket(try Connection.raw(target))
    } else if command == "for", rest.count >= 2 {
        let named = rest[0].split(separator: ":")
        guard let pid = Int32(named[0]) else { usage("no process id in \(rest[0])") }
        let start = named.count >= 2 ? UInt64(named[1]) : ForwardedProcess.running(pid: pid)?.startTime
        guard let start else { usage("no process \(rest[0]) to ask for") }
        // The groups named (PID:START:G1,G2), else those the process holds now, as a bus would have recorded them
        // when it connected.
        let groups =
            named.count == 3 ? named[2].split(separator: ",").compactMap { UInt32($0) } : currentGroups(of: pid)
        let forwarded = ForwardedProcess(pid: pid, startTime: start, groups: groups)
        let client = DaemonClient(socketPath: target).forwarding(forwarded)
        return try perform(rest[1], Array(rest.dropFirst(2)), on: .client(client))
    } else {
        connection = .client(DaemonClient(socketPath: target))
    }
    try perform(command, rest, on: connection)
}

/// One command on a connection.
func perform(_ command: String, _ rest: [String], on connection: Connection) throws(EngineError) {
    switch (command, rest.count) {
    case ("session", 0):
        session(connection)
    case ("prompt", 0):
        prompt()
    case ("describe", 0):
        try describe(connection)
    case ("add", 2...3):
        var attributes = attributes(rest[0])
        if rest.count == 3 { attributes[.accessGroup] = .string(rest[2]) }
        let item = NewItem(itemClass: .genericPassword, attributes: attributes, data: Data(rest[1].utf8))
        _ = try connection.call(.backend(.add(item)))
        emit(["status": 0, "added": rest[0], "storage": connection.storage])
    case ("add-large", 2):
        guard let count = Int(rest[1]), count > 0 else { usage("add-large needs a byte count, not \(rest[1])") }
        let bytes = [UInt8]((0..<count).map { _ in UInt8.random(in: 0...255) })
        let item = NewItem(itemClass: .genericPassword, attributes: attributes(rest[0]), data: Data(bytes))
        _ = try connection.call(.backend(.add(item)))
        emit(["status": 0, "added": rest[0]])
    case ("register", 2...3):
        guard let entitlements = FileManager.default.contents(atPath: rest[1]) else {
            usage("cannot read the entitlements \(rest[1])")
        }
        let insecure = rest.count == 3 && rest[2] == "--allow-insecure-exec"
        _ = try connection.call(
            .registerApp(path: rest[0], entitlements: entitlements, allowsInsecureExecution: insecure))
        emit(["status": 0, "registered": rest[0]])
    case ("get", 1...2):
        emitSecret(try connection.call(getRequest(rest[0], group: rest.count == 2 ? rest[1] : nil)))
    case ("unlock", 1):
        _ = try connection.call(.backend(.unlock(Passcode(copying: rest[0]))))
        emit(["status": 0])
    case ("erase-after", 1...2):
        guard let failures = Int(rest[0]) else { usage("erase-after needs a count, not \(rest[0])") }
        let passcode = try rest.count == 2 ? Passcode(copying: rest[1]) : nil
        _ = try connection.call(.backend(.setEraseAfter(failures, passcode: passcode)))
        emit(["status": 0])
    case ("verify", 0):
        guard case .backend(.report(let report)) = try connection.call(.backend(.verify)) else {
            usage("verify answered otherwise")
        }
        emit(["status": 0, "items": report.itemCount])
    case ("list-apps", 0):
        guard case .apps(let apps) = try connection.call(.listApps) else { usage("list-apps answered otherwise") }
        emit(["status": 0, "apps": apps.map(\.path)])
    case ("latest-sequence", 0):
        guard case .backend(.sequence(let sequence)) = try connection.call(.backend(.latestChangeSequence)) else {
            usage("latest-sequence answered otherwise")
        }
        emit(["status": 0, "sequence": sequence])
    case ("changes", 1):
        guard let since = Int64(rest[0]) else { usage("changes needs a sequence, not \(rest[0])") }
        guard case .backend(.changes(let batch)) = try connection.call(.backend(.changes(since: since, limit: 100)))
        else {
            usage("changes answered otherwise")
        }
        emit(["status": 0, "count": batch.changes.count, "sequence": batch.cursor])
    case ("watch", 1...):
        guard case .client(let client) = connection else { usage("watch needs a socket path") }
        try watch(client, then: rest)
    case ("protect-file", 2):
        guard case .client(let client) = connection else { usage("protect-file needs a socket path") }
        protectedFile { () throws(FileProtectionError) in
            try ProtectedFiles(backend: client).write(
                Data(rest[1].utf8), to: URL(fileURLWithPath: rest[0]),
                protection: .completeUntilFirstUserAuthentication)
            return [:]
        }
    case ("read-protected", 1):
        guard case .client(let client) = connection else { usage("read-protected needs a socket path") }
        protectedFile { () throws(FileProtectionError) in
            let data = try ProtectedFiles(backend: client).contents(of: URL(fileURLWithPath: rest[0]))
            return ["secret": String(decoding: data, as: UTF8.self)]
        }
    case ("get-as-user", 2):
        guard let uid = UInt32(rest[0]) else { usage("get-as-user needs a uid, not \(rest[0])") }
        emitSecret(try connection.call(getRequest(rest[1], group: nil), user: uid))
    case ("exec-then", 1...):
        guard case .socket(let socket) = connection else { usage("exec-then needs its own connection") }
        try describe(connection)
        execute(handOn(socket, rest[0], Array(rest.dropFirst())))
    case ("spawn-then", 1...):
        guard case .socket(let socket) = connection else { usage("spawn-then needs its own connection") }
        try describe(connection)
        wait(for: spawn(handOn(socket, rest[0], Array(rest.dropFirst()))))
        try describe(connection)
    case ("send-then-exec", 2...):
        guard case .socket(let socket) = connection else { usage("send-then-exec needs an inherited connection") }
        try socket.send(DaemonCoding.encode(DaemonEnvelope(request: getRequest(rest[0], group: nil))))
        execute(Array(rest.dropFirst()))
    case ("steal-by-exec", 2...):
        guard case .socket(let socket) = connection else { usage("steal-by-exec needs its own connection") }
        try stealByExec(socket, rest[0], Array(rest.dropFirst()))
    default:
        usage("unknown command or wrong number of arguments: \(command) \(rest.joined(separator: " "))")
    }
}

/// Run as `pinentry`: records how it was started, then answers one conversation.
func actAsPinentry() -> Never {
    var groups = [gid_t](repeating: 0, count: 256)
    let count = getgroups(Int32(groups.count), &groups)
    var record = [
        "egid=\(getegid())", "gid=\(getgid())", "groups=\(groups.prefix(Int(max(count, 0))).map(String.init))",
    ]
    var variable = environ
    while let entry = variable.pointee {
        record.append(String(cString: entry))
        variable += 1
    }
    _ = FileManager.default.createFile(
        atPath: "pinentry-record", contents: Data((record.joined(separator: "\n") + "\n").utf8))
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say("OK Pleased to meet you")
    while let line = readLine() {
        switch line.split(separator: " ").first {
        case "GETPIN": say("D hunter2\nOK")
        case "BYE":
            say("OK closing connection")
            exit(0)
        default: say("OK")
        }
    }
    exit(0)
}

if CommandLine.arguments.first.map({ URL(fileURLWithPath: $0).lastPathComponent }) == "pinentry" { actAsPinentry() }

do throws(EngineError) {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    emit(error)
}
exit(0)

/// The effective and supplementary groups of `pid` (`/proc/PID/status`), or none when it cannot be read.
func currentGroups(of pid: Int32) -> [UInt32] {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return [] }
    var groups: [UInt32] = []
    for line in status.split(separator: "\n") {
        let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
        if fields.first == "Gid:", fields.count > 2, let effective = UInt32(fields[2]) { groups.append(effective) }
        if fields.first == "Groups:" { groups += fields.dropFirst().compactMap { UInt32($0) } }
    }
    return groups
}
