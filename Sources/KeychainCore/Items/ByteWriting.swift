import Foundation

/// The few ways the engine writes bytes: text as UTF-8, integers little-endian, fields length-prefixed.
extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `text` (a contiguous copy, not a byte-by-byte walk).
    mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends an integer's little-endian bytes.
    package mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Appends a `UInt32` little-endian length, then the bytes.
    package mutating func appendLengthPrefixed(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { buffer in
            appendLittleEndian(UInt32(buffer.count))
            append(contentsOf: buffer)
        }
    }

    /// Appends a `UInt32` little-endian length, then the UTF-8 bytes of `text`.
    package mutating func appendLengthPrefixedUTF8(_ text: String) {
        appendLittleEndian(UInt32(text.utf8.count))
        appendUTF8(text)
    }

    /// Appends the 16 bytes of a UUID.
    package mutating func appendUUID(_ uuid: UUID) {
        Swift.withUnsafeBytes(of: uuid.uuid) { append(contentsOf: $0) }
    }
}

extension UUID {
    /// A UUID read from exactly 16 bytes, or `nil`.
    package init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 16 else { return nil }
        self.init(uuid: bytes.loadUnaligned(as: uuid_t.self))
    }
}
