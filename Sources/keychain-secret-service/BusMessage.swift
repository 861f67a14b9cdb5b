import CSDBus
import Foundation

/// One D-Bus message being read or written, through sd-bus's own marshalling (`sd_bus_message_read_basic`,
/// `…_append_basic`, containers): typed reads that throw a `BusFailure` naming what was expected, and appends.
struct BusMessage {
    let handle: OpaquePointer

    /// The member, interface and path of a call.
    var member: String { sd_bus_message_get_member(handle).map { String(cString: $0) } ?? "" }
    var interface: String { sd_bus_message_get_interface(handle).map { String(cString: $0) } ?? "" }
    var path: String { sd_bus_message_get_path(handle).map { String(cString: $0) } ?? "" }

    // MARK: Reading

    func readString(_ type: Character = "s") throws(BusFailure) -> String {
        var pointer: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(handle, CChar(type.asciiValue ?? 0), &pointer), "a \(type) argument")
        return pointer.map { String(cString: $0) } ?? ""
    }

    func readBool() throws(BusFailure) -> Bool {
        var value: Int32 = 0
        try check(sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "b")), &value), "a boolean argument")
        return value != 0
    }

    /// A file descriptor argument (`h`): the message owns it, and closes it when it is freed.
    func readFileDescriptor() throws(BusFailure) -> Int32 {
        var descriptor: Int32 = -1
        try check(sd_bus_message_read_basic(handle, CChar(UInt8(ascii: "h")), &descriptor), "a file descriptor")
        return descriptor
    }

    func readBytes() throws(BusFailure) -> Data {
        var pointer: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(handle, CChar(UInt8(ascii: "y")), &pointer, &size), "a byte array")
        guard let pointer, size > 0 else { return Data() }
        return Data(bytes: pointer, count: size)
    }

    /// Runs `body` inside a container (`a`, `e`, `r`, `v`) of `contents`; returns `false` at the end of an array.
    func enter(_ type: Character, _ contents: String, _ body: () throws(BusFailure) -> Void) throws(BusFailure) -> Bool
    {
        let entered = sd_bus_message_enter_container(handle, CChar(type.asciiValue ?? 0), contents)
        try check(entered, "a \(type)(\(contents)) argument")
        guard entered > 0 else { return false }
        try body()
        try check(sd_bus_message_exit_container(handle), "the end of a \(type)(\(contents))")
        return true
    }

    /// The elements of an array of `contents`.
    func readArray(of contents: String, _ element: () throws(BusFailure) -> Void) throws(BusFailure) {
        _ = try enter("a", contents) { () throws(BusFailure) in
            while sd_bus_message_at_end(handle, 0) == 0 { try element() }
        }
    }

    /// A dictionary of strings (`a{ss}`).
    func readStringDictionary() throws(BusFailure) -> [String: String] {
        var result: [String: String] = [:]
        try readArray(of: "{ss}") { () throws(BusFailure) in
            _ = try enter("e", "ss") { () throws(BusFailure) in
                let key = try readString()
                result[key] = try readString()
            }
        }
        return result
    }

    /// An array of object paths (`ao`).
    func readPaths() throws(BusFailure) -> [String] {
        var result: [String] = []
        try readArray(of: "o") { () throws(BusFailure) in result.append(try readString("o")) }
        return result
    }

    /// An array of 32-bit unsigned integers (`au`), such as group ids.
    func readGroups() throws(BusFailure) -> [UInt32] {
        var pointer: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(handle, CChar(UInt8(ascii: "u")), &pointer, &size), "an array of u")
        guard let pointer, size > 0 else { return [] }
        return (0..<size / 4).map { pointer.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
    }

    /// The type of the next value and its contents signature.
    func peek() -> (type: Character, contents: String) {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        _ = sd_bus_message_peek_type(handle, &type, &contents)
        return (Character(UnicodeScalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) } ?? "")
    }

    /// Skips the next value of signature `types`.
    func skip(_ types: String) throws(BusFailure) {
        try check(sd_bus_message_skip(handle, types), "a \(types) to skip")
    }

    // MARK: Writing

    func append(_ text: String, as type: Character = "s") throws(BusFailure) {
        try check(
            text.withCString { sd_bus_message_append_basic(handle, CChar(type.asciiValue ?? 0), $0) }, "a \(type)")
    }

    func append(_ flag: Bool) throws(BusFailure) {
        var value: Int32 = flag ? 1 : 0
        try check(sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "b")), &value), "a boolean")
    }

    func append(_ number: UInt64) throws(BusFailure) {
        var value = number
        try check(sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "t")), &value), "a uint64")
    }

    func append(_ number: UInt32) throws(BusFailure) {
        var value = number
        try check(sd_bus_message_append_basic(handle, CChar(UInt8(ascii: "u")), &value), "a uint32")
    }

    func append(bytes: Data) throws(BusFailure) {
        try check(
            bytes.withUnsafeBytes {
                sd_bus_message_append_array(handle, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count)
            }, "a byte array")
    }

    /// Writes a container (`a`, `e`, `r`, `v`) of `contents` whose elements `body` appends.
    func container(_ type: Character, _ contents: String, _ body: () throws(BusFailure) -> Void) throws(BusFailure) {
        try check(sd_bus_message_open_container(handle, CChar(type.asciiValue ?? 0), contents), "a \(type)")
        try body()
        try check(sd_bus_message_close_container(handle), "the end of a \(type)")
    }

    func append(paths: [String]) throws(BusFailure) {
        try container("a", "o") { () throws(BusFailure) in for path in paths { try append(path, as: "o") } }
    }

    func append(dictionary: [String: String]) throws(BusFailure) {
        try container("a", "{ss}") { () throws(BusFailure) in
            for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                try container("e", "ss") { () throws(BusFailure) in
                    try append(key)
                    try append(value)
                }
            }
        }
    }

    private func check(_ status: Int32, _ what: String) throws(BusFailure) {
        guard status >= 0 else {
            throw BusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "expected \(what)")
        }
    }
}

/// A D-Bus error reply: its name and message.
struct BusFailure: Error {
    var name: String
    var message: String

    static func notSupported(_ message: String) -> BusFailure {
        BusFailure(name: "org.freedesktop.DBus.Error.NotSupported", message: message)
    }

    static func accessDenied(_ message: String) -> BusFailure {
        BusFailure(name: "org.freedesktop.DBus.Error.AccessDenied", message: message)
    }

    static func noSuchObject(_ path: String) -> BusFailure {
        BusFailure(name: "org.freedesktop.Secret.Error.NoSuchObject", message: "no such object: \(path)")
    }

    static func unknownMethod(_ message: BusMessage) -> BusFailure {
        BusFailure(
            name: "org.freedesktop.DBus.Error.UnknownMethod",
            message: "\(message.interface).\(message.member) is not a method of \(message.path)")
    }
}
