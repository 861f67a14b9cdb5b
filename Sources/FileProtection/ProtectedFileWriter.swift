import Foundation
import KeychainCore

/// Writes a protected file in pieces, in constant memory (one chunk of plaintext and one of ciphertext).
///
/// Get one from ``ProtectedFiles/writer(to:protection:)``. The file is written under a temporary name and moved
/// into place by ``close()``: until then the destination keeps its old contents, and a writer released without
/// `close()`, or one that failed, leaves no trace. Not thread-safe: one owner at a time.
///
/// A ``FileProtectionClass/complete`` writer refuses to write while the keychain is locked
/// (``FileProtectionError/interactionNotAllowed``, nothing written) and goes on once it is unlocked again. Writers
/// of the other classes work in every state once open: a ``FileProtectionClass/completeUnlessOpen`` file can be
/// created and written while locked.
public final class ProtectedFileWriter {
    /// Where the file goes.
    public let url: URL
    /// The file's protection class.
    public let protection: FileProtectionClass

    private let backend: any KeychainBackend
    private let output: AtomicFile
    private let sealer: SecretStream.Sealer
    private let streamBinding: [UInt8]
    private let overwriting: Bool
    private let pending: ByteBuffer
    private var pendingCount = 0
    private let sealed: ByteBuffer
    private var isFirstChunk = true
    private var failure: FileProtectionError?
    private var isClosed = false

    /// Creates the file's header under a temporary name. Throws ``FileProtectionError/interactionNotAllowed``
    /// before anything is written when the class cannot create files in the current lock state.
    init(
        url: URL, protection: FileProtectionClass, backend: any KeychainBackend, chunkByteCount: Int,
        overwriting: Bool
    ) throws(FileProtectionError) {
        self.url = url
        self.protection = protection
        self.backend = backend
        self.overwriting = overwriting
        let path = url.path
        let header: [UInt8]
        do throws(EngineError) {
            let fileKey = try SecretKey.random()
            sealer = try SecretStream.Sealer(key: fileKey)
            var fields = FileHeader(
                keyClass: protection.keyClass, chunkByteCount: chunkByteCount,
                keybagID: try backend.keybagStatus().keybagID,
                fileID: try RandomBytes.make(count: FileHeader.identifierByteCount), wrappedKey: Data(),
                streamHeader: sealer.header)
            fields.wrappedKey = try backend.wrapFileKey(
                fileKey, for: protection.keyClass, context: fields.fixedFields)
            streamBinding = fields.streamBinding
            header = try fields.encoded(tag: backend)
        } catch {
            throw FileProtectionError(error, path: path)
        }
        pending = ByteBuffer(count: chunkByteCount)
        sealed = ByteBuffer(count: chunkByteCount + SecretStream.overhead)
        output = try AtomicFile(destination: url)
        try output.file.write(header)
    }

    /// Appends bytes to the file. They are sealed a chunk at a time; a chunk is written once the next byte
    /// arrives (or at ``close()``), so the last chunk can carry the final tag.
    public func write(contentsOf data: some DataProtocol) throws(FileProtectionError) {
        for region in data.regions {
            try region.withUnsafeBytes { bytes in Result { () throws(FileProtectionError) in try write(bytes) } }.get()
        }
    }

    /// Appends the bytes of a buffer (the streaming entry points' path, without a copy into `Data`).
    func write(_ bytes: UnsafeRawBufferPointer) throws(FileProtectionError) {
        try checkWritable()
        var offset = 0
        while offset < bytes.count {
            // A full chunk is sealed only now that more data follows it: the final tag belongs to the last one.
            if pendingCount == pending.count {
                try failing { () throws(FileProtectionError) in try sealPending(isFinal: false) }
            }
            let count = min(pending.count - pendingCount, bytes.count - offset)
            pending.slice(pendingCount..<(pendingCount + count))
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
            pendingCount += count
            offset += count
        }
    }

    /// Seals the last chunk with the final tag, flushes the file and moves it into place (replacing the
    /// destination, or failing with ``FileProtectionError/duplicateItem`` when it exists and overwriting was not
    /// allowed). Closing twice does nothing.
    public func close() throws(FileProtectionError) {
        guard !isClosed else { return }
        try checkWritable()
        try failing { () throws(FileProtectionError) in
            try sealPending(isFinal: true)
            try output.commit(overwriting: overwriting)
        }
        isClosed = true
        wipe()
    }

    // MARK: Private

    private func sealPending(isFinal: Bool) throws(FileProtectionError) {
        let count: Int
        do throws(EngineError) {
            count = try sealer.seal(
                pending.prefix(pendingCount), associatedData: isFirstChunk ? streamBinding : [], isFinal: isFinal,
                into: sealed.bytes)
        } catch {
            throw FileProtectionError(error, path: url.path)
        }
        try output.file.write(sealed.prefix(count))
        pendingCount = 0
        isFirstChunk = false
    }

    /// Throws when the writer cannot take more: closed, failed earlier, or a Complete file while locked.
    private func checkWritable() throws(FileProtectionError) {
        if isClosed { throw FileProtectionError(.param, "\(url.path): the protected file writer is closed") }
        if let failure {
            throw FileProtectionError(
                status: failure.status, message: "\(failure.message) (the file was left as it was)")
        }
        if protection == .complete && !backend.canOpenFiles(of: .classA) {
            throw FileProtectionError(
                .interactionNotAllowed,
                "\(url.path): files of class complete cannot be written while the keychain is locked")
        }
    }

    /// Runs a step whose failure ends the writer: the temporary file is discarded when the writer is released.
    private func failing(_ step: () throws(FileProtectionError) -> Void) throws(FileProtectionError) {
        do {
            try step()
        } catch {
            failure = error
            output.discard()
            wipe()
            throw error
        }
    }

    /// Zeroes the plaintext still buffered.
    private func wipe() {
        pending.zero()
        pendingCount = 0
    }
}
