import CSodium
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

extension BackupBench {
    /// The floors of this design, beside secretstream's (issue 27): what a backup and a restore cannot go below
    /// whatever the archive code does.
    ///
    /// - The scan floor: the engine's own rows read from SQLite, each item key unwrapped, metadata and secret opened
    ///   (``Engine/scanPlaintexts(for:_:)``), each item framed as an archive message (class, attributes, data) and
    ///   pushed through `crypto_secretstream_xchacha20poly1305` into 64 KiB writes and one fsync, the plaintext
    ///   zeroed after each push. No ``Item`` is built, nothing is decoded, no KDF runs.
    /// - The batch-add floor: the engine adding the same items in one write transaction (``Engine/batch(for:_:)``),
    ///   no archive: what a restore, which writes in one transaction too, cannot beat.
    enum ScanFloor {
        /// Seconds of a scan of `source`'s items into a stream in `directory` (the median of three).
        static func run(source: URL, count: Int, in directory: URL) throws -> Double {
            let engine = try Engine(storage: .directory(source))
            let caller = Caller(applicationIdentifier: applicationIdentifier)
            let key = try RandomBytes.make(count: Int(crypto_secretstream_xchacha20poly1305_KEYBYTES))
            let file = directory.appendingPathComponent("scan.ss").path
            var runs: [Double] = []
            for _ in 0..<3 {
                unlink(file)
                let start = DispatchTime.now().uptimeNanoseconds
                let scanned = try scan(engine, caller: caller, key: key, to: file)
                runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                guard scanned == count else { throw BenchError("the scan floor read \(scanned) items of \(count)") }
            }
            unlink(file)
            return runs.sorted()[1]
        }

        private static func scan(_ engine: Engine, caller: Caller, key: [UInt8], to path: String) throws -> Int {
            let output = try RawFile(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
            var state = crypto_secretstream_xchacha20poly1305_state()
            let buffer = RawBuffer(count: 64 << 10)
            let message = RawBuffer(count: 64 << 10)
            defer { sodium_memzero(message.base, message.count) }
            var used = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
            crypto_secretstream_xchacha20poly1305_init_push(&state, buffer.base, key)
            var failure: (any Error)?
            let scanned = try engine.scanPlaintexts(for: caller) { (itemClass, attributes, data) throws(EngineError) in
                // The archive's message: class (4 bytes), then attributes and data, each length-prefixed.
                let length = 4 + 4 + attributes.count + 4 + data.count
                guard length <= message.count else {
                    throw EngineError(.dataTooLarge, "an item of \(length) bytes is past the scan floor's buffer")
                }
                var at = 0
                func append(_ bytes: UnsafeRawBufferPointer) {
                    if let base = bytes.baseAddress {
                        (message.base + at).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
                    }
                    at += bytes.count
                }
                func appendLength(_ count: Int) {
                    withUnsafeBytes(of: UInt32(count).littleEndian) { append($0) }
                }
                itemClass.rawValue.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
                appendLength(attributes.count)
                append(attributes)
                appendLength(data.count)
                append(data)
                defer { sodium_memzero(message.base, at) }
                do {
                    if used + 4 + at + overhead > buffer.count {
                        try output.write(buffer.base, count: used)
                        used = 0
                    }
                    withUnsafeBytes(of: UInt32(at + overhead).littleEndian) { bytes in
                        for (offset, byte) in bytes.enumerated() { buffer.base[used + offset] = byte }
                    }
                    used += 4
                    var sealed: UInt64 = 0
                    crypto_secretstream_xchacha20poly1305_push(
                        &state, buffer.base + used, &sealed, message.base, UInt64(at), nil, 0, 0)
                    used += Int(sealed)
                } catch {
                    failure = error
                    throw EngineError(.ioError, "the scan floor could not write: \(error)")
                }
            }
            if let failure { throw failure }
            // The final message, as the archive's.
            var end = Array("END".utf8)
            withUnsafeBytes(of: UInt32(scanned).littleEndian) { end += $0 }
            if used + 4 + end.count + overhead > buffer.count {
                try output.write(buffer.base, count: used)
                used = 0
            }
            withUnsafeBytes(of: UInt32(end.count + overhead).littleEndian) { bytes in
                for (offset, byte) in bytes.enumerated() { buffer.base[used + offset] = byte }
            }
            used += 4
            var sealed: UInt64 = 0
            crypto_secretstream_xchacha20poly1305_push(
                &state, buffer.base + used, &sealed, end, UInt64(end.count), nil, 0,
                UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL))
            used += Int(sealed)
            try output.write(buffer.base, count: used)
            try output.synchronize()
            return scanned
        }
    }
}
