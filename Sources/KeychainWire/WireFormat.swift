import Foundation
import KeychainCore

/// keychaind's binary wire form, written field by field: one byte for a flag or a tag, 8 little-endian bytes for
/// an integer or a date, a little-endian `UInt32` length (or count) before text, bytes and lists.
///
/// Written by hand rather than through `Codable`: a generic coder builds its containers at run time, and in a
/// static binary every first use of a `Codable` type looks its conformances up across the whole binary — most of
/// what a short-lived `security` command spent on one request.
///
/// The storage grows by doubling, and storage it leaves behind is wiped (``Swift/Array/reserveWiping(_:)``): the
/// message is whole in one buffer only, which its sender wipes once sent.
package struct WireWriter {
    /// The bytes written so far.
    package private(set) var bytes: [UInt8] = []

    /// An empty writer.
    package init() {
        bytes.reserveCapacity(256)
    }

    mutating func byte(_ value: UInt8) {
        bytes.reserveWiping(1)
        bytes.append(value)
    }
    mutating func bool(_ value: Bool) { byte(value ? 1 : 0) }
    mutating func int64(_ value: Int64) {
        bytes.reserveWiping(8)
        bytes.appendLittleEndian(UInt64(bitPattern: value))
    }
    mutating func int(_ value: Int) { int64(Int64(value)) }
    mutating func uint32(_ value: UInt32) {
        bytes.reserveWiping(4)
        bytes.appendLittleEndian(value)
    }
    mutating func string(_ value: String) {
        bytes.reserveWiping(4 + value.utf8.count)
        bytes.appendLengthPrefixedUTF8(value)
    }
    mutating func data(_ value: some ContiguousBytes) {
        value.withUnsafeBytes { bytes.reserveWiping(4 + $0.count) }
        bytes.appendLengthPrefixed(value)
    }
    mutating func uuid(_ value: UUID) {
        bytes.reserveWiping(16)
        bytes.appendUUID(value)
    }
    mutating func date(_ value: Date) {
        bytes.reserveWiping(8)
        bytes.appendLittleEndian(value.timeIntervalSinceReferenceDate.bitPattern)
    }
    /// A passcode's bytes, length-first (as text is, so the layout is that of version 2's UTF-8 passcodes), copied
    /// from its guarded memory into the message only.
    mutating func passcode(_ value: Passcode) {
        value.withUnsafeBytes { secret in
            bytes.reserveWiping(4 + secret.count)
            bytes.appendLittleEndian(UInt32(secret.count))
            bytes.append(contentsOf: secret)
        }
    }
    mutating func raw<Value: RawRepresentable>(_ value: Value) where Value.RawValue == String { string(value.rawValue) }
    /// A key's bytes, length-first, copied from its locked memory into the message only.
    mutating func secretKey(_ value: SecretKey) {
        value.withUnsafeBytes { data($0) }
    }

    /// A count, then each element written by `body`.
    mutating func list<Element>(_ elements: [Element], _ body: (inout WireWriter, Element) -> Void) {
        uint32(UInt32(elements.count))
        for element in elements { body(&self, element) }
    }

    /// A presence flag, then the value written by `body` when there is one.
    mutating func optional<Value>(_ value: Value?, _ body: (inout WireWriter, Value) -> Void) {
        bool(value != nil)
        if let value { body(&self, value) }
    }
}

/// Reads keychaind's binary wire form, trusting nothing: every length and count is checked against the bytes
/// left before anything is read or reserved, text must be UTF-8, flags 0 or 1, numbers finite and in range, tags
/// known. Anything else throws errSecParam naming what and where — never a crash (`make fuzz-daemon`).
package struct WireReader {
    private let bytes: [UInt8]
    private var offset = 0

    /// A reader of `bytes`, from the first.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Throws unless every byte was read.
    package func finish() throws(EngineError) {
        guard offset == bytes.count else { throw malformed("\(bytes.count - offset) bytes follow the message") }
    }

    /// errSecParam: what is wrong, and where.
    package func malformed(_ what: String) -> EngineError {
        EngineError(.param, "\(what) at byte \(offset)")
    }

    private mutating func take(_ count: Int) throws(EngineError) -> Range<Int> {
        guard count >= 0, bytes.count - offset >= count else { throw malformed("the message ends too early") }
        defer { offset += count }
        return offset..<offset + count
    }

    mutating func byte() throws(EngineError) -> UInt8 { bytes[try take(1).lowerBound] }

    mutating func bool() throws(EngineError) -> Bool {
        switch try byte() {
        case 0: return false
        case 1: return true
        case let other: throw malformed("a flag of \(other), not 0 or 1")
        }
    }

    private mutating func littleEndian<T: FixedWidthInteger>(_ type: T.Type) throws(EngineError) -> T {
        let range = try take(MemoryLayout<T>.size)
        var value: T = 0
        for (shift, index) in range.enumerated() { value |= T(bytes[index]) << (shift * 8) }
        return value
    }

    mutating func int64() throws(EngineError) -> Int64 { Int64(bitPattern: try littleEndian(UInt64.self)) }

    mutating func int() throws(EngineError) -> Int {
        let value = try int64()
        guard let converted = Int(exactly: value) else { throw malformed("the number \(value) does not fit an Int") }
        return converted
    }

    mutating func uint32() throws(EngineError) -> UInt32 { try littleEndian(UInt32.self) }

    private mutating func run() throws(EngineError) -> ArraySlice<UInt8> {
        bytes[try take(Int(try uint32()))]
    }

    mutating func string() throws(EngineError) -> String {
        let run = try run()
        // Decoding repairs bad UTF-8 (each bad sequence becomes U+FFFD), so text whose bytes are not the run's was
        // not UTF-8. `String(validating:as:)` says the same, but looks up generic metadata on every call: a
        // third of decoding a key use's request, which keychaind does for every message.
        let text = run.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
        guard text.utf8.elementsEqual(run) else { throw malformed("text that is not UTF-8") }
        return text
    }

    mutating func data() throws(EngineError) -> Data { Data(try run()) }

    /// A passcode's bytes, copied from the message straight into guarded memory (never text: a passcode need not
    /// be UTF-8, and a `String` of it would outlive the message).
    mutating func passcode() throws(EngineError) -> Passcode {
        try Passcode(copying: try run())
    }
    mutating func byteArray() throws(EngineError) -> [UInt8] { Array(try run()) }

    /// A key's bytes, copied from the message straight into locked memory.
    mutating func secretKey() throws(EngineError) -> SecretKey {
        try SecretKey(copying: try run())
    }

    mutating func uuid() throws(EngineError) -> UUID {
        let range = try take(16)
        guard let uuid = bytes[range].withUnsafeBytes({ UUID(bytes: $0) }) else { throw malformed("a malformed UUID") }
        return uuid
    }

    mutating func date() throws(EngineError) -> Date {
        let seconds = Double(bitPattern: try littleEndian(UInt64.self))
        // A NaN date is not even equal to itself, and no clock gives an infinite one.
        guard seconds.isFinite else { throw malformed("a date that is not a finite number") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    mutating func raw<Value: RawRepresentable>(_ type: Value.Type) throws(EngineError) -> Value
    where Value.RawValue == String {
        let text = try string()
        guard let value = Value(rawValue: text) else { throw malformed("\"\(text)\" is no \(type)") }
        return value
    }

    /// A count, then that many elements read by `body`. Every element takes at least `minimumSize` bytes, so a
    /// count the bytes left cannot hold is refused before anything is reserved.
    mutating func list<Element>(
        minimumSize: Int = 1, _ body: (inout WireReader) throws(EngineError) -> Element
    ) throws(EngineError) -> [Element] {
        let count = Int(try uint32())
        guard count <= (bytes.count - offset) / max(1, minimumSize) else {
            throw malformed("a list of \(count) entries, more than the message holds")
        }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0..<count { elements.append(try body(&self)) }
        return elements
    }

    /// A presence flag, then the value read by `body` when it is set.
    mutating func optional<Value>(
        _ body: (inout WireReader) throws(EngineError) -> Value
    ) throws(EngineError) -> Value? {
        try bool() ? try body(&self) : nil
    }
}

/// A message keychaind's wire carries whole: a request's envelope or a reply.
package protocol DaemonMessage: Sendable {
    /// Writes the message.
    func write(to writer: inout WireWriter)
    /// Reads a message, refusing anything malformed.
    init(wire reader: inout WireReader) throws(EngineError)
}
