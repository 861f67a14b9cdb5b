import Foundation
import KeychainCore

/// Reads a protected file in pieces, in constant memory (one chunk of ciphertext and one of plaintext).
///
/// Get one from ``ProtectedFiles/reader(from:)``. Every byte it returns belongs to an authenticated chunk of this
/// file, in its place. A file cut short, reordered, spliced or altered throws ``FileProtectionError/decode`` at the
/// first chunk concerned; a file that merely ends early is detected at the end, so the end of the data is
/// signalled (`nil` or `0`) only once the final chunk has been authenticated. Callers that must not act on any
/// part of a damaged file read to the end first, as ``ProtectedFiles/contents(of:)`` and
/// ``ProtectedFiles/unprotect(contentsOf:to:progress:)`` do. Not thread-safe: one owner at a time.
///
/// The file key is unwrapped when the reader is created, so a ``FileProtectionClass/completeUnlessOpen`` reader
/// opened while unlocked keeps reading after a lock. A ``FileProtectionClass/complete`` reader refuses to read while
/// the keychain is locked (``FileProtectionError/interactionNotAllowed``) and goes on once it is unlocked again.
public final class ProtectedFileReader {
    /// The file being read.
    public let url: URL
    /// The file's protection class.
    public let protection: FileProtectionClass
    /// How many bytes of plaintext the file holds, as its size says (each chunk's overhead taken off); what reading
    /// it yields once every chunk has been authenticated.
    public let plaintextByteCount: Int64

    private let backend: any KeychainBackend
    private let file: Descriptor
    private let opener: SecretStream.Opener
    private let streamBinding: [UInt8]
    private let sealed: ByteBuffer
    private let plaintext: ByteBuffer
    private var plaintextRange = 0..<0
    private var chunkIndex = 0
    private var failure: FileProtectionError?
    private var isAtEnd = false

    /// Opens the file, checks its header and unwraps its key. Throws ``FileProtectionError/interactionNotAllowed``
    /// when its class is unavailable now and ``FileProtectionError/decode`` when it is not a protected file of this
    /// keychain or its header was altered.
    init(url: URL, backend: any KeychainBackend) throws(FileProtectionError) {
        self.url = url
        self.backend = backend
        let path = url.path
        file = try Descriptor.openForReading(path)
        let header = try FileHeader.read(from: file, backend: backend)
        protection = FileProtectionClass(header.keyClass)
        do throws(EngineError) {
            let fileKey = try backend.unwrapFileKey(
                header.wrappedKey, for: header.keyClass, context: header.fixedFields)
            opener = try SecretStream.Opener(key: fileKey, header: header.streamHeader)
        } catch {
            throw FileProtectionError(error, path: path)
        }
        streamBinding = header.streamBinding
        // The header is read: what follows is sealed chunks, each the chunk's bytes and the stream's overhead.
        let body = Int64(try file.size()) - Int64(try file.offset())
        let sealedChunk = Int64(header.chunkByteCount + SecretStream.overhead)
        let chunks = max(1, (body + sealedChunk - 1) / sealedChunk)
        plaintextByteCount = max(0, body - chunks * Int64(SecretStream.overhead))
        sealed = ByteBuffer(count: header.chunkByteCount + SecretStream.overhead)
        plaintext = ByteBuffer(count: header.chunkByteCount)
    }

    /// Reads up to `count` bytes; `nil` once the whole file has been read and authenticated.
    public func read(upToCount count: Int) throws(FileProtectionError) -> Data? {
        guard count > 0 else { throw FileProtectionError(.param, "\(url.path): cannot read \(count) bytes") }
        var data = Data(count: count)
        let read = try data.withUnsafeMutableBytes { buffer in
            Result { () throws(FileProtectionError) in try self.read(into: buffer) }
        }.get()
        guard read > 0 else { return nil }
        data.removeSubrange(read...)
        return data
    }

    /// Fills `buffer` (not empty) as far as the file allows and returns how many bytes were written; `0` once the
    /// whole file has been read and authenticated.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileProtectionError) -> Int {
        if let failure { throw failure }
        guard buffer.count > 0 else {
            throw FileProtectionError(.param, "\(url.path): cannot read into an empty buffer")
        }
        if protection == .complete && !backend.canOpenFiles(of: .classA) {
            throw FileProtectionError(
                .interactionNotAllowed,
                "\(url.path): files of class complete cannot be read while the keychain is locked")
        }
        var written = 0
        while written < buffer.count {
            if plaintextRange.isEmpty {
                guard try loadNextChunk() else { break }
                continue
            }
            let count = min(plaintextRange.count, buffer.count - written)
            UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + count)])
                .copyMemory(from: UnsafeRawBufferPointer(plaintext.slice(plaintextRange.prefix(count))))
            plaintextRange = (plaintextRange.lowerBound + count)..<plaintextRange.upperBound
            written += count
        }
        return written
    }

    /// Reads the rest of the file, authenticated to its end.
    public func readToEnd() throws(FileProtectionError) -> Data {
        var data = Data()
        while let chunk = try read(upToCount: plaintext.count) { data.append(chunk) }
        return data
    }

    /// Releases the file and zeroes the buffered plaintext. Reading afterwards throws.
    public func close() {
        failure = failure ?? FileProtectionError(.param, "\(url.path): the protected file reader is closed")
        wipe()
        // A read-only descriptor has nothing left to report on close.
        try? file.close()
    }

    // MARK: Private

    /// Reads, authenticates and opens the next chunk into `plaintext`; `false` at the authenticated end.
    private func loadNextChunk() throws(FileProtectionError) -> Bool {
        if isAtEnd { return false }
        do {
            try openNextChunk()
            return true
        } catch {
            failure = error
            wipe()
            throw error
        }
    }

    private func openNextChunk() throws(FileProtectionError) {
        let path = url.path
        let count = try file.read(into: sealed.bytes)
        guard count > 0 else {
            throw FileProtectionError(
                .decode, "\(path): the file is truncated: it ends after chunk \(chunkIndex) without its final chunk")
        }
        let opened: (count: Int, isFinal: Bool)
        do throws(EngineError) {
            opened = try opener.open(
                sealed.prefix(count), associatedData: chunkIndex == 0 ? streamBinding : [], into: plaintext.bytes)
        } catch {
            throw FileProtectionError(
                .decode,
                "\(path): chunk \(chunkIndex + 1) failed authentication: the file was altered, truncated, reordered "
                    + "or spliced")
        }
        chunkIndex += 1
        if opened.isFinal {
            guard try file.readBytes(count: 1).isEmpty else {
                throw FileProtectionError(.decode, "\(path): the file goes on after its final chunk \(chunkIndex)")
            }
            isAtEnd = true
        } else if count < sealed.count {
            throw FileProtectionError(
                .decode, "\(path): the file is truncated: chunk \(chunkIndex) is short and not the final one")
        }
        plaintextRange = 0..<opened.count
    }

    /// Zeroes the buffered plaintext.
    private func wipe() {
        plaintext.zero()
        plaintextRange = 0..<0
    }
}
