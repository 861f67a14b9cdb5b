import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A software TPM 2.0 of one test's own: `swtpm` (Debian's swtpm, installed by scripts/bootstrap) serving the TPM
/// command protocol on a free TCP port of the loopback interface, its state in a temporary directory.
///
/// It is started already initialized (`not-need-init,startup-clear`), and killed with SIGKILL and reaped when the
/// value is released, whatever the test's outcome (the test runner's threads block SIGTERM, which a child inherits).
/// Two instances are two different TPMs: their seeds, and so their keys, differ.
public final class SoftwareTPM: @unchecked Sendable {
    // @unchecked: `process` is replaced only by `start()` and `stop()`, which a test calls from one task.
    /// Where swtpm is installed.
    public static let path = "/usr/bin/swtpm"
    /// The TCTI that reaches it, for `KEYCHAIN_TPM` or `TPMContext.open(tcti:)`.
    public var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }
    /// The TPM's state directory (its seeds and NV memory).
    public let stateDirectory: URL
    /// The swtpm process's id while it runs.
    public var processIdentifier: pid_t? { process?.processIdentifier }
    /// The command port (the control port is the next one).
    public private(set) var port: UInt16 = 0
    private let directory: TemporaryDirectory
    private var process: Process?

    /// Why the tests cannot have a software TPM, or `nil` when they can.
    public static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: path)
            ? nil : "skipped: swtpm is not installed (Debian's swtpm and swtpm-tools; scripts/bootstrap installs them)"
    }

    /// Starts a new TPM in a temporary directory and waits until it answers.
    public init() throws {
        directory = try TemporaryDirectory(prefix: "kctpm")
        stateDirectory = directory.file("state")
        try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
        try start()
    }

    deinit { stop() }

    /// Starts the TPM (again, after ``stop()``, with the same state) on free ports and waits until it accepts
    /// connections. A port another process took between the probe and swtpm's bind is retried on another.
    public func start() throws {
        guard process?.isRunning != true else { return }
        var failures: [String] = []
        for _ in 0..<5 {
            let port = try Self.freePortPair()
            let log = directory.file("swtpm-\(port).log")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.path)
            process.arguments = [
                "socket", "--tpm2", "--tpmstate", "dir=\(stateDirectory.path)",
                "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
                "--flags", "not-need-init,startup-clear", "--log", "file=\(log.path)",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            self.process = process
            self.port = port
            for _ in 0..<200 {
                if Self.accepts(port: port) { return }
                guard process.isRunning else { break }
                Thread.sleep(forTimeInterval: 0.025)
            }
            stop()
            failures.append((try? String(contentsOf: log, encoding: .utf8)) ?? "swtpm on port \(port) did not answer")
        }
        throw SpawnError(message: "swtpm did not start: \(failures.joined(separator: "; "))")
    }

    /// Kills the TPM at once (SIGKILL, as a power cut would) and reaps it; its state directory stays.
    public func stop() {
        guard let process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    /// A port whose successor is free too, both on the loopback interface, found by binding to port 0.
    private static func freePortPair() throws -> UInt16 {
        for _ in 0..<50 {
            guard let port = bind(0), port < UInt16.max else { continue }
            if bind(port + 1) != nil { return port }
        }
        throw SpawnError(message: "no two free consecutive TCP ports on 127.0.0.1")
    }

    /// Binds a TCP socket to `port` on 127.0.0.1 and closes it; the port bound, or `nil`.
    private static func bind(_ port: UInt16) -> UInt16? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return named == 0 ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Whether something accepts TCP connections on `port` of 127.0.0.1.
    private static func accepts(port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
