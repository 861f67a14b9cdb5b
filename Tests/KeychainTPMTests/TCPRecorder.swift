import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A listener on the wire between a TPM client and its TPM: a TCP relay on 127.0.0.1 that forwards every byte to
/// swtpm's command port and back (and its control port, the next one, which the TCTI also uses), keeping a copy of
/// all of them, as a probe on the TPM's bus would.
final class TCPRecorder: Sendable {
    /// The port clients connect to instead of the TPM's command port (the control port is the next one).
    let port: UInt16
    private let listeners: [Int32]
    private let recording = Recording()

    /// The bytes seen, shared with the relay's threads.
    private final class Recording: Sendable {
        let bytes = Mutex<[UInt8]>([])
    }

    /// Starts relaying to swtpm's ports `target` and `target + 1` on 127.0.0.1.
    init(relayingTo target: UInt16) throws {
        for _ in 0..<50 {
            guard let first = Self.listen(on: 0) else { continue }
            guard let second = Self.listen(on: first.port + 1) else {
                close(first.socket)
                continue
            }
            port = first.port
            listeners = [first.socket, second.socket]
            Self.relay(first.socket, to: target, recording: recording)
            Self.relay(second.socket, to: target + 1, recording: recording)
            return
        }
        throw POSIXError(.EADDRINUSE)
    }

    deinit {
        for listener in listeners {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// Everything that crossed so far, both ways.
    var recorded: [UInt8] { recording.bytes.withLock { $0 } }

    /// A listening socket on `port` of 127.0.0.1 (0: any free port), and its port.
    private static func listen(on port: UInt16) -> (socket: Int32, port: UInt16)? {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard bound == 0, named == 0, Glibc.listen(listener, 8) == 0 else {
            close(listener)
            return nil
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on `listener` until it is shut down, relaying each to `target`.
    private static func relay(_ listener: Int32, to target: UInt16, recording: Recording) {
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var address = loopback(target)
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0 else {
                    close(client)
                    close(server)
                    continue
                }
                pump(from: client, to: server, recording: recording, closing: false)
                pump(from: server, to: client, recording: recording, closing: true)
            }
        }.start()
    }

    /// Copies bytes from one socket to the other on a thread of its own, recording them, until either closes; the
    /// thread of the second direction closes both sockets when it ends.
    private static func pump(from source: Int32, to destination: Int32, recording: Recording, closing: Bool) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                recording.bytes.withLock { $0 += buffer[0..<count] }
                let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress, count) }
                guard written == count else { break }
            }
            shutdown(source, Int32(SHUT_RDWR))
            shutdown(destination, Int32(SHUT_RDWR))
            if closing {
                // Give the other direction's thread time to see the shutdown before the descriptors go.
                Thread.sleep(forTimeInterval: 0.1)
                close(source)
                close(destination)
            }
        }.start()
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
