import Foundation
import KeychainCore

/// Changes a protected file's class by rewrapping its key: a new header, then the body copied as it is (the body
/// does not depend on the class), into a temporary file that replaces the original once complete.
struct ProtectionChange {
    let url: URL
    let backend: any KeychainBackend

    /// The size of the pieces the body is copied in.
    private static let copyByteCount = 256 << 10

    func apply(_ protection: FileProtectionClass) throws(FileProtectionError) {
        let path = url.path
        let source = try Descriptor.openForReading(path)
        var header = try FileHeader.read(from: source, backend: backend)
        let encoded: [UInt8]
        do throws(EngineError) {
            // Unwrapping first proves the current class is available, even when the class does not change.
            let fileKey = try backend.unwrapFileKey(
                header.wrappedKey, for: header.keyClass, context: header.fixedFields)
            guard header.keyClass != protection.keyClass else { return }
            header.keyClass = protection.keyClass
            header.wrappedKey = try backend.wrapFileKey(fileKey, for: header.keyClass, context: header.fixedFields)
            encoded = try header.encoded(tag: backend)
        } catch {
            throw FileProtectionError(error, path: path)
        }
        let destination = try AtomicFile(destination: url)
        try destination.file.write(encoded)
        let buffer = ByteBuffer(count: Self.copyByteCount)
        while case let count = try source.read(into: buffer.bytes), count > 0 {
            try destination.file.write(buffer.prefix(count))
        }
        try destination.commit()
    }
}
