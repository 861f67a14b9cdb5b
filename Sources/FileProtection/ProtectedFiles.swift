import Foundation
import KeychainClient
import KeychainCore

/// Protected files on a keychain's keybag: files that anyone who copies them cannot read, in the four
/// ``FileProtectionClass``es, each available in the lock states iOS gives it.
///
/// ```swift
/// let files = try ProtectedFiles()  // the keychain in $KEYCHAIN_HOME (or the default directory)
/// try files.write(Data("hello".utf8), to: url, protection: .complete)
/// let data = try files.contents(of: url)           // only while the keychain is unlocked
/// try files.setProtection(.completeUnlessOpen, of: url)   // rewraps the key; the data is not re-encrypted
/// ```
///
/// A protected file is a header (format, class, keybag, the file's own key wrapped by the keybag) and the data in
/// authenticated chunks (DESIGN §7). Every write goes to a temporary file that replaces the destination only once
/// complete and flushed, mode 0600: a write that fails, for a lock or anything else, leaves the file as it was.
/// Every read authenticates: a truncated, reordered, spliced or altered file throws
/// ``FileProtectionError/decode`` and none of it is returned.
///
/// A `ProtectedFiles` is a `Sendable` value; share it freely. Its lock state is that of its backend: the files
/// work through any `KeychainBackend` (the embedded engine, or later the keychain daemon), and
/// ``init(directory:)`` takes the one the rest of the process uses for that directory, so unlocking it unlocks
/// the files too.
public struct ProtectedFiles: Sendable {
    /// The keybag the files' keys are wrapped by.
    public let backend: any KeychainBackend
    /// How many bytes of plaintext each chunk of a new file holds.
    public let chunkByteCount: Int

    /// The chunk size of new files unless another is given: 64 KiB.
    public static let defaultChunkByteCount = 64 << 10

    /// Protected files on `backend`'s keybag (from `KeychainBackends.backend(for:options:)`, or an `Engine` the
    /// caller opened).
    public init(backend: any KeychainBackend) {
        self.backend = backend
        self.chunkByteCount = Self.defaultChunkByteCount
    }

    /// Protected files on `backend`'s keybag whose new files use chunks of `chunkByteCount` bytes (a power of two
    /// from 1 KiB to 1 MiB). Readers accept any such size, whatever they were created with.
    public init(backend: any KeychainBackend, chunkByteCount: Int) throws(FileProtectionError) {
        guard FileHeader.chunkByteCountRange.contains(chunkByteCount), chunkByteCount.nonzeroBitCount == 1 else {
            throw FileProtectionError(
                .param, "chunk size \(chunkByteCount) is not a power of two from 1 KiB to 1 MiB")
        }
        self.backend = backend
        self.chunkByteCount = chunkByteCount
    }

    /// Protected files on the keychain in `directory`, or on the process's default keychain (keychaind's when a
    /// daemon serves this user, else the embedded one in `$KEYCHAIN_HOME`, else `$XDG_DATA_HOME/swift-keychain`,
    /// else `~/.local/share/swift-keychain`), created when missing.
    ///
    /// The backend is the process's one for that directory (`KeychainBackends.backend(for:options:)`), so files and
    /// a `Keychain` on the same directory share one lock state: unlocking either unlocks both.
    public init(directory: URL? = nil) throws(FileProtectionError) {
        let storage =
            directory.map { KeychainStorage.directory($0) }
            ?? .processDefault
        do throws(EngineError) {
            self.init(backend: try KeychainBackends.backend(for: storage))
        } catch {
            throw FileProtectionError(error, path: storage.description)
        }
    }

    // MARK: Whole files

    /// Writes `data` to `url` as a protected file of class `protection`, replacing any file there atomically.
    /// Throws ``FileProtectionError/interactionNotAllowed`` when the class cannot create files now.
    public func write(_ data: some DataProtocol, to url: URL, protection: FileProtectionClass)
        throws(FileProtectionError)
    {
        try write(data, to: url, protection: protection, overwriting: true)
    }

    /// The whole contents of a protected file, returned only once every chunk has been authenticated.
    public func contents(of url: URL) throws(FileProtectionError) -> Data {
        try reader(from: url).readToEnd()
    }

    // MARK: Streams

    /// A writer that creates a protected file at `url` in pieces, in constant memory; the file appears (replacing
    /// any file there) when the writer is closed. Throws ``FileProtectionError/interactionNotAllowed`` when the class
    /// cannot create files now.
    public func writer(to url: URL, protection: FileProtectionClass) throws(FileProtectionError) -> ProtectedFileWriter
    {
        try ProtectedFileWriter(
            url: url, protection: protection, backend: backend, chunkByteCount: chunkByteCount, overwriting: true)
    }

    /// A reader of the protected file at `url`, in pieces, in constant memory. Throws
    /// ``FileProtectionError/interactionNotAllowed`` when the file's class is unavailable now.
    public func reader(from url: URL) throws(FileProtectionError) -> ProtectedFileReader {
        try ProtectedFileReader(url: url, backend: backend)
    }

    /// Protects a plain file: streams `input` into a protected file at `output` of class `protection`, in
    /// constant memory. `output` may be `input` itself; it is replaced atomically once complete. `progress`, when
    /// given, hears the bytes of `input` done so far and their total after each chunk.
    public func protect(
        contentsOf input: URL, to output: URL, protection: FileProtectionClass,
        progress: ((_ done: Int64, _ total: Int64) -> Void)? = nil
    ) throws(FileProtectionError) {
        let source = try Descriptor.openForReading(input.path)
        let total = Int64(try source.size())
        let writer = try writer(to: output, protection: protection)
        let buffer = ByteBuffer(count: chunkByteCount)
        var done: Int64 = 0
        while case let count = try source.read(into: buffer.bytes), count > 0 {
            try writer.write(buffer.prefix(count))
            done += Int64(count)
            progress?(done, max(total, done))
        }
        try writer.close()
    }

    /// Unprotects a file: streams the protected file `input` into a plain file at `output` (mode 0600), in
    /// constant memory. `output` appears only once the whole of `input` has been authenticated: for a damaged file
    /// it is not created, and an existing one is left as it was.
    /// `progress`, when given, hears the plaintext bytes done so far and their total after each chunk.
    public func unprotect(
        contentsOf input: URL, to output: URL, progress: ((_ done: Int64, _ total: Int64) -> Void)? = nil
    ) throws(FileProtectionError) {
        let reader = try reader(from: input)
        let total = reader.plaintextByteCount
        let destination = try AtomicFile(destination: output)
        let buffer = ByteBuffer(count: chunkByteCount)
        var done: Int64 = 0
        while case let count = try reader.read(into: buffer.bytes), count > 0 {
            try destination.file.write(buffer.prefix(count))
            done += Int64(count)
            progress?(done, max(total, done))
        }
        try destination.commit()
    }

    // MARK: Protection class

    /// The protection class of the file at `url`, read from its header once the header is authenticated (which
    /// works in every lock state).
    public func protection(of url: URL) throws(FileProtectionError) -> FileProtectionClass {
        let file = try Descriptor.openForReading(url.path)
        return FileProtectionClass(try FileHeader.read(from: file, backend: backend).keyClass)
    }

    /// Changes the protection class of the file at `url` by rewrapping its key: the data is not re-encrypted (nor
    /// read: it is authenticated when next read). Needs the current class available (to unwrap) and the new one
    /// able to create files (to wrap); otherwise throws ``FileProtectionError/interactionNotAllowed`` and leaves the
    /// file as it was. The new file replaces the old one atomically.
    public func setProtection(_ protection: FileProtectionClass, of url: URL) throws(FileProtectionError) {
        try ProtectionChange(url: url, backend: backend).apply(protection)
    }

    // MARK: Internal

    /// Writes a whole file, replacing the destination or, with `overwriting: false`, failing when it exists.
    func write(
        _ data: some DataProtocol, to url: URL, protection: FileProtectionClass, overwriting: Bool
    ) throws(FileProtectionError) {
        let writer = try ProtectedFileWriter(
            url: url, protection: protection, backend: backend, chunkByteCount: chunkByteCount,
            overwriting: overwriting)
        try writer.write(contentsOf: data)
        try writer.close()
    }
}
