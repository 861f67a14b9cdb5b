import CSodium
import Foundation

/// An authenticated stream of messages (libsodium's `crypto_secretstream_xchacha20poly1305`): each message is
/// sealed in order under one key, so a message that is altered, dropped, reordered, taken from another stream or
/// missing at the end (the last one carries the *final* tag) fails to open.
///
/// A ``Sealer`` writes a stream, an ``Opener`` reads one. Both keep their state (a key derived from the stream's key
/// and a counter) in locked memory that is zeroed when they are released. Neither is thread-safe: one owner at a time.
package enum SecretStream {
    /// The size of the stream header a sealer produces and an opener needs (the stream's random nonce).
    package static let headerByteCount = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    /// How many bytes sealing adds to each message (its tag byte and its authenticator).
    package static let overhead = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

    /// The state of a stream in locked memory.
    fileprivate typealias State = crypto_secretstream_xchacha20poly1305_state

    /// Writes a stream: messages in order, the last one marked final.
    package final class Sealer {
        /// The stream header: store it (it is not secret) before the sealed messages.
        package let header: [UInt8]
        private let state: SecureBytes
        private var isFinished = false

        /// Starts a stream under `key` with a fresh random header.
        package init(key: SecretKey) throws(EngineError) {
            let state = try SecureBytes(count: MemoryLayout<State>.size)
            var header = [UInt8](repeating: 0, count: SecretStream.headerByteCount)
            let status = state.withStreamState { stream in
                key.withUnsafeBytes { keyBytes in
                    crypto_secretstream_xchacha20poly1305_init_push(stream, &header, keyBytes.sodiumPointer)
                }
            }
            guard status == 0 else { throw .internalError("secretstream could not start a stream") }
            self.state = state
            self.header = header
        }

        /// Seals `message` into `output` (which must hold `message.count + overhead` bytes) and returns how many
        /// bytes it wrote. `associatedData` is authenticated, not stored: the opener must pass the same bytes.
        /// After a message sealed with `isFinal`, the stream accepts no more.
        package func seal(
            _ message: UnsafeRawBufferPointer, associatedData: some ContiguousBytes = [UInt8](), isFinal: Bool,
            into output: UnsafeMutableRawBufferPointer
        ) throws(EngineError) -> Int {
            guard !isFinished else { throw .param("the stream is finished: its final message was already sealed") }
            guard output.count >= message.count + SecretStream.overhead else {
                throw .param("a sealed message needs \(message.count + SecretStream.overhead) bytes of output")
            }
            let tag = isFinal ? UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL) : 0
            var written: UInt64 = 0
            let status = associatedData.withUnsafeBytes { additional in
                state.withStreamState { stream in
                    crypto_secretstream_xchacha20poly1305_push(
                        stream, output.sodiumPointer, &written, message.sodiumPointer, UInt64(message.count),
                        additional.sodiumPointer, UInt64(additional.count), tag)
                }
            }
            guard status == 0 else { throw .internalError("secretstream could not seal a message") }
            isFinished = isFinal
            return Int(written)
        }

        /// Whether the final message has been sealed.
        package var isFinal: Bool { isFinished }
    }

    /// Reads a stream sealed by a ``Sealer``, message by message, in order.
    package final class Opener {
        private let state: SecureBytes
        private var phase = Phase.reading

        private enum Phase {
            case reading, finished, failed
        }

        /// Starts reading the stream whose header is `header` under `key`.
        package init(key: SecretKey, header: some ContiguousBytes) throws(EngineError) {
            let state = try SecureBytes(count: MemoryLayout<State>.size)
            let status = header.withUnsafeBytes { headerBytes in
                guard headerBytes.count == SecretStream.headerByteCount else { return Int32(-1) }
                return state.withStreamState { stream in
                    key.withUnsafeBytes { keyBytes in
                        crypto_secretstream_xchacha20poly1305_init_pull(
                            stream, headerBytes.sodiumPointer, keyBytes.sodiumPointer)
                    }
                }
            }
            guard status == 0 else { throw .decode("a secretstream header is malformed") }
            self.state = state
        }

        /// Opens the next sealed message into `output` (which must hold `sealed.count - overhead` bytes) and
        /// returns how many bytes it wrote and whether the message was the stream's final one.
        ///
        /// A message that fails authentication (altered, out of order, from another stream, or with other
        /// associated data) throws ``EngineError/Code/decode`` and writes nothing; the stream cannot be read further.
        package func open(
            _ sealed: UnsafeRawBufferPointer, associatedData: some ContiguousBytes = [UInt8](),
            into output: UnsafeMutableRawBufferPointer
        ) throws(EngineError) -> (count: Int, isFinal: Bool) {
            switch phase {
            case .reading: break
            case .finished: throw .decode("the stream goes on after its final message")
            case .failed: throw .decode("the stream cannot be read past a message that failed authentication")
            }
            guard sealed.count >= SecretStream.overhead else {
                phase = .failed
                throw .decode("a sealed message is shorter than its authenticator")
            }
            guard output.count >= sealed.count - SecretStream.overhead else {
                throw .param("an opened message needs \(sealed.count - SecretStream.overhead) bytes of output")
            }
            var written: UInt64 = 0
            var tag: UInt8 = 0
            // libsodium verifies the authenticator before it writes the plaintext.
            let status = associatedData.withUnsafeBytes { additional in
                state.withStreamState { stream in
                    crypto_secretstream_xchacha20poly1305_pull(
                        stream, output.sodiumPointer, &written, &tag, sealed.sodiumPointer, UInt64(sealed.count),
                        additional.sodiumPointer, UInt64(additional.count))
                }
            }
            guard status == 0 else {
                phase = .failed
                throw .decode("a sealed message failed authentication")
            }
            let isFinal = tag == UInt8(crypto_secretstream_xchacha20poly1305_TAG_FINAL)
            guard isFinal || tag == UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE) else {
                // A sealer of ours writes only these two tags; another tag means someone else's stream.
                phase = .failed
                throw .decode("a sealed message carries an unexpected tag \(tag)")
            }
            if isFinal { phase = .finished }
            return (Int(written), isFinal)
        }

        /// Whether the final message has been opened.
        package var isFinal: Bool { phase == .finished }
    }
}

extension SecureBytes {
    /// Runs `body` on the region as libsodium's stream state. The state holds only bytes, so any address is
    /// suitably aligned; the region is never used as anything else.
    fileprivate func withStreamState(_ body: (UnsafeMutablePointer<SecretStream.State>) -> Int32) -> Int32 {
        withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count >= MemoryLayout<SecretStream.State>.size else { return -1 }
            return body(base.bindMemory(to: SecretStream.State.self, capacity: 1))
        }
    }
}
