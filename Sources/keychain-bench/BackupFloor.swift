import CSodium
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

extension BackupBench {
    /// The floor of a backup and a restore: `crypto_secretstream_xchacha20poly1305` push and pull of as many
    /// messages and bytes as the archive holds, each framed by a 4-byte length, in 64 KiB writes and one fsync
    /// (push), and one read of the file followed by the pulls (pull). No KDF, no keychain, no item encoding.
    enum Floor {
        /// Bytes/s of the push and of the pull (the median of three).
        static func run(messages: Int, bytes: Int, in directory: URL) throws -> (push: Double, pull: Double) {
            let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
            let messageBytes = max(1, bytes / max(1, messages) - 4 - overhead)
            let key = try RandomBytes.make(count: Int(crypto_secretstream_xchacha20poly1305_KEYBYTES))
            let file = directory.appendingPathComponent("floor.ss").path
            var pushes: [Double] = []
            var pulls: [Double] = []
            for _ in 0..<3 {
                unlink(file)
                var start = DispatchTime.now().uptimeNanoseconds
                let written = try push(messages: messages, messageBytes: messageBytes, key: key, to: file)
                pushes.append(Double(written) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
                start = DispatchTime.now().uptimeNanoseconds
                let read = try pull(key: key, from: file, messageBytes: messageBytes)
                pulls.append(Double(read) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            }
            return (pushes.sorted()[1], pulls.sorted()[1])
        }

        private static func push(messages: Int, messageBytes: Int, key: [UInt8], to path: String) throws -> Int {
            let output = try RawFile(path, flags: O_WRONLY | O_CREAT | O_TRUNC)
            let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)
            var state = crypto_secretstream_xchacha20poly1305_state()
            let buffer = RawBuffer(count: 64 << 10)
            var used = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
            crypto_secretstream_xchacha20poly1305_init_push(&state, buffer.base, key)
            let plain = RawBuffer(count: messageBytes)
            var total = 0
            for index in 0..<messages {
                if used + 4 + messageBytes + overhead > buffer.count {
                    try output.write(buffer.base, count: used)
                    total += used
                    used = 0
                }
                let length = UInt32(messageBytes + overhead)
                withUnsafeBytes(of: length.littleEndian) { bytes in
                    for (offset, byte) in bytes.enumerated() { buffer.base[used + offset] = byte }
                }
                used += 4
                var sealed: UInt64 = 0
                let tag = index == messages - 1 ? UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL) : 0
                crypto_secretstream_xchacha20poly1305_push(
                    &state, buffer.base + used, &sealed, plain.base, UInt64(messageBytes), nil, 0, tag)
                used += Int(sealed)
            }
            try output.write(buffer.base, count: used)
            try output.synchronize()
            return total + used
        }

        private static func pull(key: [UInt8], from path: String, messageBytes: Int) throws -> Int {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let headerBytes = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
            var state = crypto_secretstream_xchacha20poly1305_state()
            guard crypto_secretstream_xchacha20poly1305_init_pull(&state, bytes, key) == 0 else {
                throw BenchError("the floor's stream header does not open")
            }
            let plain = RawBuffer(count: messageBytes)
            var offset = headerBytes
            try bytes.withUnsafeBufferPointer { all in
                guard let base = all.baseAddress else { return }
                while offset + 4 <= all.count {
                    let length =
                        Int(all[offset]) | Int(all[offset + 1]) << 8 | Int(all[offset + 2]) << 16
                        | Int(all[offset + 3]) << 24
                    offset += 4
                    var opened: UInt64 = 0
                    var tag: UInt8 = 0
                    guard
                        crypto_secretstream_xchacha20poly1305_pull(
                            &state, plain.base, &opened, &tag, base + offset, UInt64(length), nil, 0) == 0
                    else { throw BenchError("a floor message does not open") }
                    offset += length
                }
            }
            return bytes.count
        }
    }
}
