import Foundation

/// What an x86-64 or arm64 ELF executable asks of the dynamic linker, read from its program headers and dynamic
/// section (ELF64, little-endian): whether every symbol is bound at start and the relocated data made read-only
/// after (full RELRO), so no function's first call is resolved later, on a thread that may hold a secret in its
/// registers, and no pointer the dynamic linker filled in can be overwritten.
public struct ELFHardening: CustomStringConvertible {
    /// Whether the executable has a dynamic section at all (a static executable binds nothing).
    public var isDynamic: Bool
    /// `DT_BIND_NOW`, `DF_BIND_NOW` in `DT_FLAGS` or `DF_1_NOW` in `DT_FLAGS_1`.
    public var bindsNow: Bool
    /// A `PT_GNU_RELRO` segment.
    public var hasRelocationReadOnly: Bool

    /// Reads the executable at `url`; throws when it is not a 64-bit little-endian ELF file.
    public init(executable url: URL) throws {
        let file = try FileHandle(forReadingFrom: url)
        defer { try? file.close() }
        let header = try Self.read(file, at: 0, count: 64)
        guard header.starts(with: [0x7f, 0x45, 0x4c, 0x46]), header[4] == 2, header[5] == 1 else {
            throw ELFError("\(url.path) is not a 64-bit little-endian ELF file")
        }
        let programHeaders = Self.integer(header, at: 0x20, size: 8)
        let entrySize = Self.integer(header, at: 0x36, size: 2)
        let entryCount = Self.integer(header, at: 0x38, size: 2)
        var dynamic: (offset: UInt64, size: UInt64)?
        hasRelocationReadOnly = false
        for index in 0..<entryCount {
            let entry = try Self.read(file, at: programHeaders + index * entrySize, count: 56)
            switch Self.integer(entry, at: 0, size: 4) {
            case 2: dynamic = (Self.integer(entry, at: 8, size: 8), Self.integer(entry, at: 32, size: 8))
            case 0x6474_e552: hasRelocationReadOnly = true
            default: break
            }
        }
        isDynamic = dynamic != nil
        bindsNow = false
        guard let dynamic else { return }
        let section = try Self.read(file, at: dynamic.offset, count: Int(dynamic.size))
        for start in stride(from: 0, to: section.count - 15, by: 16) {
            let tag = Self.integer(section, at: start, size: 8)
            let value = Self.integer(section, at: start + 8, size: 8)
            switch tag {
            case 24: bindsNow = true  // DT_BIND_NOW
            case 30 where value & 0x8 != 0: bindsNow = true  // DT_FLAGS, DF_BIND_NOW
            case 0x6fff_fffb where value & 0x1 != 0: bindsNow = true  // DT_FLAGS_1, DF_1_NOW
            default: break
            }
        }
    }

    /// `dynamic, binds now, RELRO`, as the test's message shows it.
    public var description: String {
        "\(isDynamic ? "dynamic" : "static"), \(bindsNow ? "binds now" : "binds lazily"), "
            + (hasRelocationReadOnly ? "RELRO" : "no RELRO")
    }

    private static func read(_ file: FileHandle, at offset: UInt64, count: Int) throws -> [UInt8] {
        try file.seek(toOffset: offset)
        let bytes = [UInt8](try file.read(upToCount: count) ?? Data())
        guard bytes.count == count else { throw ELFError("the ELF file ends inside a header at \(offset)") }
        return bytes
    }

    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        (0..<size).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    private static func integer(_ bytes: [UInt8], at offset: UInt64, size: Int) -> UInt64 {
        integer(bytes, at: Int(offset), size: size)
    }
}

/// A file ``ELFHardening`` cannot read.
public struct ELFError: Error, CustomStringConvertible {
    /// What is wrong with the file.
    public var description: String

    init(_ description: String) { self.description = description }
}
