import Foundation
import KeychainCore

/// Reads an archive from a file descriptor, item by item, checking each message as it comes.
final class BackupReader {
    let header: BackupArchive.Header
    private let headerBytes: [UInt8]
    private let input: BackupInput
    private let opener: SecretStream.Opener
    /// The plaintext of the message being read, reused from one to the next and zeroed after each.
    private var plain: [UInt8] = []
    private(set) var read = 0
    private(set) var isComplete = false

    /// Reads the header and derives the key; a wrong passphrase shows at the first message.
    init(from input: FileHandle, passphrase: Passcode) throws(EngineError) {
        self.input = BackupInput(input)
        headerBytes = try self.input.bytes(BackupArchive.headerByteCount, what: "its header") { Array($0) }
        header = try BackupArchive.Header(headerBytes)
        let key = try BackupArchive.key(passphrase: passphrase, salt: header.salt, cost: header.cost)
        guard try header.check(under: key) == header.check else {
            throw EngineError(.authFailed, BackupArchive.damaged("the backup does not open with this passphrase"))
        }
        opener = try SecretStream.Opener(key: key, header: header.streamHeader)
    }

    deinit { plain.wipe() }

    /// The next item, or `nil` after the final message (which must repeat the header's count). A message that
    /// fails is errSecDecode naming the cause: the wrong passphrase (or an edited header) at the first, damage or a
    /// reordering later, a truncation when the stream ends before its final message.
    func next() throws(EngineError) -> BackupArchive.Entry? {
        guard !isComplete else { return nil }
        let length = try input.bytes(4, what: "item \(read + 1)'s length") { bytes in
            Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
        }
        guard length >= SecretStream.overhead, length <= BackupArchive.maximumMessageByteCount else {
            throw EngineError(.decode, "archive damaged at item \(read + 1): its length \(length) is not one")
        }
        let plainCount = length - SecretStream.overhead
        // Zeroed after every message (below), so a buffer outgrown holds nothing.
        if plain.count < plainCount { plain = [UInt8](repeating: 0, count: plainCount) }
        // Opened in place from the read-ahead buffer, into the reused plaintext buffer.
        let outcome = try input.bytes(length, what: "item \(read + 1)") {
            (sealed) -> Result<(count: Int, isFinal: Bool), EngineError> in
            plain.withUnsafeMutableBytes { out in
                Result { () throws(EngineError) in
                    try opener.open(
                        sealed, associatedData: headerBytes,
                        into: UnsafeMutableRawBufferPointer(rebasing: out[0..<plainCount]))
                }
            }
        }
        defer {
            plain.wipe(first: plainCount)
            // A large item's buffer is not kept for the small ones after it.
            if plain.count > BackupInput.readAhead { plain = [] }
        }
        let opened: (count: Int, isFinal: Bool)
        do throws(EngineError) {
            opened = try outcome.get()
        } catch {
            throw EngineError(
                .decode, "archive damaged or reordered at item \(read + 1): it fails authentication")
        }
        if opened.isFinal {
            guard opened.count >= 3, Array(plain.prefix(3)) == BackupArchive.endMarker, read == header.itemCount else {
                throw EngineError(
                    .decode,
                    "archive truncated: it ends after \(read) items, but its header announces \(header.itemCount)")
            }
            // The final message ends the archive: anything after it (another archive appended, stray bytes) is not
            // authenticated by it, so it is refused rather than ignored.
            let trailing = try input.remainingByteCount()
            guard trailing == 0 else {
                throw EngineError(.decode, "archive damaged: \(trailing) bytes follow after its final message")
            }
            isComplete = true
            return nil
        }
        read += 1
        return try BackupArchive.decode(plain, range: 0..<opened.count)
    }
}

/// An archive's bytes read ahead in 64 KiB reads (a file or a pipe), so that a message costs no system call of its
/// own. It holds only sealed bytes and the clear header.
private final class BackupInput {
    static let readAhead = 64 << 10
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start.
    private var start = 0
    private var atEnd = false

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// Hands `body` the next `count` bytes, in place; the input ending first is a truncation inside `what`.
    func bytes<Result>(
        _ count: Int, what: String, _ body: (UnsafeRawBufferPointer) -> Result
    ) throws(EngineError) -> Result {
        try fill(count)
        guard buffer.count - start >= count else {
            throw EngineError(.decode, "archive truncated: it ends inside \(what)")
        }
        defer { start += count }
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<(start + count)])) }
    }

    /// How many bytes are left (read to the end, counted, dropped).
    func remainingByteCount() throws(EngineError) -> Int {
        var count = buffer.count - start
        start = buffer.count
        while !atEnd {
            let chunk = try readChunk(Self.readAhead)
            count += chunk.count
        }
        return count
    }

    /// Reads until `count` bytes are buffered or the input ends.
    private func fill(_ count: Int) throws(EngineError) {
        guard buffer.count - start < count else { return }
        // The unread tail moves to the front; the buffer grows only for a message larger than the read-ahead.
        buffer.removeSubrange(0..<start)
        start = 0
        while buffer.count < count, !atEnd {
            buffer.append(contentsOf: try readChunk(max(Self.readAhead, count - buffer.count)))
        }
    }

    private func readChunk(_ count: Int) throws(EngineError) -> Data {
        let chunk: Data
        do {
            chunk = try handle.read(upToCount: count) ?? Data()
        } catch {
            throw EngineError(.ioError, "the backup could not be read: \(error.localizedDescription)")
        }
        if chunk.isEmpty { atEnd = true }
        return chunk
    }
}
