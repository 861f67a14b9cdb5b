// keychaind: the daemon that owns every user's keychain, knows each caller from the kernel's word, and holds one
// lock state per user for all of that user's processes (DESIGN §10).
import Foundation
import KeychainCore
import KeychainDaemon
import KeychainWire

#if canImport(Glibc)
    import Glibc
#endif

/// The socket systemd passed (`LISTEN_FDS`, `LISTEN_PID`: the first passed descriptor is 3), if any.
func activatedSocket() -> SeqPacketSocket? {
    let environment = ProcessInfo.processInfo.environment
    guard let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1,
        environment["LISTEN_PID"].flatMap(Int32.init) == getpid()
    else { return nil }
    return SeqPacketSocket(descriptor: 3)
}

func runDaemon() -> Int32 {
    let options: DaemonOptions
    do {
        options = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        log(error.message)
        return 64
    }
    if options.printsSyncDropIn {
        let stores =
            SyncDropIn.configuredStores(in: options.stateDirectory)
            + options.syncStores.map { SyncDropIn.Store(owner: "--store", url: $0) }
        do throws(EngineError) {
            FileHandle.standardOutput.write(Data(try SyncDropIn.text(for: stores).utf8))
            return 0
        } catch {
            log(error.message)
            return 64
        }
    }
    do {
        // Keys live in this process's memory: no core dump, no same-user ptrace or /proc/PID/mem.
        try ProcessHardening.disableCoreDumps()
        umask(0o077)
        try FileManager.default.createDirectory(at: options.stateDirectory, withIntermediateDirectories: true)
        guard chmod(options.stateDirectory.path, 0o700) == 0 else {
            throw EngineError(.ioError, "cannot make \(options.stateDirectory.path) private")
        }
        let listener: SeqPacketSocket
        if let path = options.socketPath {
            listener = try SeqPacketSocket.listen(at: path, mode: 0o666)
        } else if let activated = activatedSocket() {
            try activated.passCredentials()
            listener = activated
        } else {
            try FileManager.default.createDirectory(atPath: "/run/swift-keychain", withIntermediateDirectories: true)
            chmod("/run/swift-keychain", 0o755)
            listener = try SeqPacketSocket.listen(at: DaemonSocket.defaultPath, mode: 0o666)
        }
        var engineOptions = EngineOptions(passcodeCost: options.passcodeCost)
        // What one reply can carry (the engine's count errs on the large side): a larger answer is refused before
        // it is gathered in memory.
        engineOptions.resultByteLimit = SeqPacketSocket.messageLimit
        if let clockFile = options.clockFile {
            engineOptions.now = {
                let text = (try? String(contentsOfFile: clockFile, encoding: .utf8)) ?? ""
                return TimeInterval(text.trimmingCharacters(in: .whitespacesAndNewlines)).map(
                    Date.init(timeIntervalSince1970:))
                    ?? Date()
            }
        }
        let keychains = UserKeychains(stateDirectory: options.stateDirectory, options: engineOptions)
        let registry = try AppRegistry(path: options.stateDirectory.appendingPathComponent("apps.json").path)
        let dispatcher = RequestDispatcher(
            keychains: keychains, registry: registry, quotas: UserQuotas(options: options))
        let idleLock = IdleLock(interval: options.idleLock, keychains: keychains)
        let limits = UserLimits(options: options)
        keychains.startBackgroundSync()
        log("serving \(options.socketPath ?? "the activated socket") for \(options.stateDirectory.path)")
        ConnectionAcceptor(listener: listener) { socket in
            // A connection made before the listener passed credentials (a socket activator's first one) does not
            // inherit it; turned on here, before the handshake's reply, every request after it carries them.
            try? socket.passCredentials()
            try? socket.setTimeouts(receive: options.handshakeTimeout, send: options.handshakeTimeout)
            guard let owner = limits.admit(socket) else { return }
            defer { limits.close(owner) }
            ClientConnection(
                socket: socket, owner: owner, dispatcher: dispatcher, activity: idleLock, limits: limits
            ).serve()
        }.run()
    } catch let error as EngineError {
        log(error.message)
        return 1
    } catch {
        log("\(error)")
        return 1
    }
}

exit(runDaemon())
