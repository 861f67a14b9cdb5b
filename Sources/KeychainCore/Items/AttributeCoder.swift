import Foundation

/// The binary form of an item's attributes, sealed as its metadata.
///
/// `version(1)` then, per attribute in key order: the four-character name, a kind tag, and the value (text and
/// bytes as a little-endian `UInt32` length and the bytes; integers and dates as 8 little-endian bytes; flags as
/// one byte). Decoding is strict: anything else is a decode error.
package enum AttributeCoder {
    private static let version: UInt8 = 1

    private enum Tag: UInt8 {
        case string = 1, data, integer, date, bool
    }

    /// Encodes attributes.
    package static func encode(_ attributes: ItemAttributes) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(128)
        for (key, value) in attributes {
            bytes.appendUTF8(key.rawValue)
            switch value {
            case .string(let text):
                bytes.append(Tag.string.rawValue)
                bytes.appendLengthPrefixedUTF8(text)
            case .data(let data):
                bytes.append(Tag.data.rawValue)
                bytes.appendLengthPrefixed(data)
            case .integer(let number):
                bytes.append(Tag.integer.rawValue)
                bytes.appendLittleEndian(UInt64(bitPattern: number))
            case .date(let date):
                bytes.append(Tag.date.rawValue)
                bytes.appendLittleEndian(date.timeIntervalSinceReferenceDate.bitPattern)
            case .bool(let flag):
                bytes.append(Tag.bool.rawValue)
                bytes.append(flag ? 1 : 0)
            }
        }
        return bytes
    }

    /// Decodes attributes, throwing a decode error for anything malformed.
    package static func decode(_ data: Data) throws(EngineError) -> ItemAttributes {
        let bytes = Array(data)
        return try decode(bytes, range: bytes.indices)
    }

    /// Decodes attributes from `bytes[range]`.
    package static func decode(_ bytes: [UInt8], range: Range<Int>) throws(EngineError) -> ItemAttributes {
        var reader = ByteReader(bytes, range: range)
        guard try reader.byte() == version else { throw .decode("item metadata has an unknown version") }
        var values = ItemAttributes()
        while !reader.isAtEnd {
            let name: UInt32 = try reader.littleEndian()
            guard let key = AttributeKey(code: name),
                values[key] == nil,
                let tag = Tag(rawValue: try reader.byte())
            else { throw .decode("item metadata holds an unknown or repeated attribute") }
            let value: AttributeValue
            switch tag {
            case .string:
                guard let text = String(validating: try reader.lengthPrefixed(), as: UTF8.self) else {
                    throw .decode("item metadata holds text that is not UTF-8")
                }
                value = .string(text)
            case .data: value = .data(Data(try reader.lengthPrefixed()))
            case .integer: value = .integer(Int64(bitPattern: try reader.littleEndian()))
            case .date:
                value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.littleEndian())))
            case .bool:
                let flag = try reader.byte()
                guard flag <= 1 else { throw .decode("item metadata holds a malformed flag") }
                value = .bool(flag == 1)
            }
            guard key.accepts(value) else { throw .decode("item metadata holds a value of the wrong type") }
            values[key] = value
        }
        return values
    }
}

/// A cursor over bytes that throws a decode error instead of reading past the end.
package struct ByteReader {
    private let bytes: [UInt8]
    private let end: Int
    private var offset: Int

    /// Reads `bytes[range]` (clamped to the array).
    package init(_ bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.offset = max(0, range.lowerBound)
        self.end = min(range.upperBound, bytes.count)
    }

    package var isAtEnd: Bool { offset == end }

    /// How many bytes are left to read.
    package var remainingCount: Int { end - offset }

    package mutating func byte() throws(EngineError) -> UInt8 {
        guard offset < end else { throw .decode("stored bytes end too early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func bytes(_ count: Int) throws(EngineError) -> ArraySlice<UInt8> {
        guard count >= 0, end - offset >= count else { throw .decode("stored bytes end too early") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    package mutating func littleEndian<T: FixedWidthInteger>() throws(EngineError) -> T {
        var value: T = 0
        for (shift, byte) in try bytes(MemoryLayout<T>.size).enumerated() {
            value |= T(byte) << (shift * 8)
        }
        return value
    }

    package mutating func lengthPrefixed() throws(EngineError) -> ArraySlice<UInt8> {
        let length: UInt32 = try littleEndian()
        return try bytes(Int(length))
    }
}
