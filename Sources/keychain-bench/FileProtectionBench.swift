import CSodium
import FileProtection
import Foundation
import KeychainCore

/// Protected-file throughput beside the raw libsodium secretstream floor, in one process, on the same disk.
///
/// Ours is `ProtectedFiles.protect(contentsOf:to:protection:)` and `unprotect(contentsOf:to:)` on a Complete file:
/// header, file key wrapping, temporary file, fsync, rename and directory fsync included. The floor is the least a
/// durable secretstream file needs: the same plain and protected files read and written with `read`/`write` in the
/// same 64 KiB chunks, `crypto_secretstream_xchacha20poly1305` push/pull, one fsync of the output; no header, no
/// key wrapping, no temporary file. Both read a file the page cache holds and write a new file in the same
/// directory under the system's temporary directory (`TMPDIR`: a disk by default, `/dev/shm` to measure in memory).
/// Each figure is the median of the rounds; ours and the floor take turns going first.
enum FileProtectionBench {
    /// Protect or unprotect throughput, ours beside the floor's.
    struct Throughput: Codable {
        var ours_mb_s: Double
        var floor_mb_s: Double
        /// ours / floor: the target is at least 0.7.
        var ratio: Double
    }

    /// The figures of one run.
    struct Figures: Codable {
        var file_mib: Int
        /// Where both wrote their files: the system's temporary directory.
        var directory: String
        var protect: Throughput
        var unprotect: Throughput
    }

    static let chunkByteCount = ProtectedFiles.defaultChunkByteCount

    static func run(megabytes: Int, rounds: Int = 5) throws -> Figures {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = ProtectedFiles(backend: try Engine(storage: .directory(directory.appendingPathComponent("kc"))))
        let plain = directory.appendingPathComponent("plain")
        try writePlainFile(plain, byteCount: megabytes << 20)
        let ours = directory.appendingPathComponent("ours.skpf")
        let floor = directory.appendingPathComponent("floor.ss")
        let oursBack = directory.appendingPathComponent("ours.back")
        let floorBack = directory.appendingPathComponent("floor.back")
        let key = try RandomBytes.make(count: Int(crypto_secretstream_xchacha20poly1305_KEYBYTES))
        var timings: [String: [Double]] = [:]
        for round in 0...rounds {
            // Round 0 warms the page cache and the allocator; it is not counted. Each operation starts with no
            // output file (deleting the previous one is not timed), and ours and the floor take turns going first.
            let protect = [
                ("ours protect", ours, { try files.protect(contentsOf: plain, to: ours, protection: .complete) }),
                ("floor protect", floor, { try floorProtect(plain, to: floor, key: key) }),
            ]
            let unprotect = [
                ("ours unprotect", oursBack, { try files.unprotect(contentsOf: ours, to: oursBack) }),
                ("floor unprotect", floorBack, { try floorUnprotect(floor, to: floorBack, key: key) }),
            ]
            let order = round % 2 == 0 ? [0, 1] : [1, 0]
            for (name, output, body) in order.map({ protect[$0] }) + order.map({ unprotect[$0] }) {
                try? FileManager.default.removeItem(at: output)
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if round > 0 { timings[name, default: []].append(seconds) }
            }
        }
        guard try Data(contentsOf: oursBack) == Data(contentsOf: plain),
            try Data(contentsOf: floorBack) == Data(contentsOf: plain)
        else { throw BenchError("a round trip did not give the plain file back") }
        let bytes = Double(megabytes << 20)
        func throughput(_ name: String) -> Double {
            let sorted = (timings[name] ?? []).sorted()
            return sorted.isEmpty ? 0 : bytes / sorted[sorted.count / 2] / 1e6
        }
        func compare(_ operation: String) -> Throughput {
            let ours = throughput("ours \(operation)")
            let floor = throughput("floor \(operation)")
            return Throughput(ours_mb_s: ours, floor_mb_s: floor, ratio: floor > 0 ? ours / floor : 0)
        }
        return Figures(
            file_mib: megabytes, directory: directory.deletingLastPathComponent().path, protect: compare("protect"),
            unprotect: compare("unprotect"))
    }

    /// A plain file of `byteCount` bytes: one random mebibyte, each copy stamped with its index.
    private static func writePlainFile(_ url: URL, byteCount: Int) throws {
        var block = try RandomBytes.make(count: 1 << 20)
        let handle = try FileHandle(forWritingTo: createEmpty(url))
        for index in 0..<(byteCount >> 20) {
            withUnsafeBytes(of: UInt64(index)) { block.replaceSubrange(0..<8, with: $0) }
            try handle.write(contentsOf: block)
        }
        try handle.close()
    }

    private static func createEmpty(_ url: URL) throws -> URL {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchError("cannot create \(url.path)")
        }
        return url
    }

    // MARK: The floor

    private static let streamHeaderByteCount = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    private static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
    private static let finalTag = UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL)

    /// Plain file → stream header and sealed chunks; the chunk read short is the final one (a file of whole chunks
    /// ends with an empty final chunk).
    private static func floorProtect(_ input: URL, to output: URL, key: [UInt8]) throws {
        let source = try RawFile(input.path, flags: O_RDONLY)
        let target = try RawFile(output.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        var state = crypto_secretstream_xchacha20poly1305_state()
        let header = RawBuffer(count: streamHeaderByteCount)
        let plain = RawBuffer(count: chunkByteCount)
        let sealed = RawBuffer(count: chunkByteCount + overhead)
        crypto_secretstream_xchacha20poly1305_init_push(&state, header.base, key)
        try target.write(header.base, count: header.count)
        var isFinal = false
        while !isFinal {
            let count = try source.read(into: plain.base, count: plain.count)
            isFinal = count < chunkByteCount
            var written: UInt64 = 0
            crypto_secretstream_xchacha20poly1305_push(
                &state, sealed.base, &written, plain.base, UInt64(count), nil, 0, isFinal ? finalTag : 0)
            try target.write(sealed.base, count: Int(written))
        }
        try target.synchronize()
    }

    /// Stream header and sealed chunks → plain file, until the final tag.
    private static func floorUnprotect(_ input: URL, to output: URL, key: [UInt8]) throws {
        let source = try RawFile(input.path, flags: O_RDONLY)
        let target = try RawFile(output.path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        var state = crypto_secretstream_xchacha20poly1305_state()
        let header = RawBuffer(count: streamHeaderByteCount)
        let sealed = RawBuffer(count: chunkByteCount + overhead)
        let plain = RawBuffer(count: chunkByteCount)
        guard try source.read(into: header.base, count: header.count) == header.count,
            crypto_secretstream_xchacha20poly1305_init_pull(&state, header.base, key) == 0
        else { throw BenchError("the floor's file has no stream header") }
        var tag: UInt8 = 0
        while tag != finalTag {
            let count = try source.read(into: sealed.base, count: sealed.count)
            var written: UInt64 = 0
            guard
                crypto_secretstream_xchacha20poly1305_pull(
                    &state, plain.base, &written, &tag, sealed.base, UInt64(count), nil, 0) == 0
            else { throw BenchError("the floor's chunk failed authentication") }
            try target.write(plain.base, count: Int(written))
        }
        try target.synchronize()
    }
}

/// A buffer of raw bytes for the floor's loops.
final class RawBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    deinit { base.deallocate() }
}

/// A file descriptor for the floor, closed when released.
final class RawFile {
    let descriptor: Int32

    init(_ path: String, flags: Int32) throws {
        descriptor = open(path, flags | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchError("cannot open \(path)") }
    }

    deinit { close(descriptor) }

    /// Fills `count` bytes unless the file ends first; returns how many were read.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        var total = 0
        while total < count {
            let read = Glibc.read(descriptor, buffer + total, count - total)
            guard read >= 0 else { throw BenchError("read failed: \(String(cString: strerror(errno)))") }
            if read == 0 { break }
            total += read
        }
        return total
    }

    func write(_ buffer: UnsafePointer<UInt8>, count: Int) throws {
        var total = 0
        while total < count {
            let written = Glibc.write(descriptor, buffer + total, count - total)
            guard written > 0 else { throw BenchError("write failed: \(String(cString: strerror(errno)))") }
            total += written
        }
    }

    func synchronize() throws {
        guard fsync(descriptor) == 0 else { throw BenchError("fsync failed: \(String(cString: strerror(errno)))") }
    }
}
