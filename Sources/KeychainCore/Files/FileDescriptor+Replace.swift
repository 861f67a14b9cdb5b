import Foundation

extension FileDescriptor {
    /// Replaces the file at `path` with `bytes`, durably and all at once (``AtomicFile``): written to a new file
    /// beside it (0600), flushed, moved over `path`, then the directory flushed, so after a crash `path` holds either
    /// the old contents or all of the new. A failure leaves `path` as it was and no temporary file behind.
    package static func replaceContents(of path: String, with bytes: [UInt8]) throws(Failure) {
        let output = try AtomicFile<Failure>(destination: URL(fileURLWithPath: path))
        do throws(Failure) {
            try output.file.write(bytes)
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }
}
