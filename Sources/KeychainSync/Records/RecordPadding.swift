import KeychainCore

/// How an item version's content is padded before it is sealed (format 3): to at least ``minimum`` bytes, and above
/// that to a Padmé length (Nikitin et al., "Reducing Metadata Leakage from Encrypted Files and Communication with
/// PURBs", PETS 2019), with a one-byte end marker (0x80, then zeroes: ISO/IEC 7816-4).
///
/// Why this scheme: the store sees each record's length, and an item's length says something about its secret.
/// Format 2 padded to a multiple of 256 bytes: small items were well hidden, but a 64 KiB item paid up to 255
/// bytes and a 300-byte item 70%, and the bound issue 23 sets on a record (≤ 1.3× plaintext + 300 for any size)
/// leaves no room for a fixed bucket that large on top of the record's own overhead at 10 bytes. Padmé rounds a
/// length `L` with `E = ⌊log₂ L⌋` up to a multiple of `2^(E - ⌊log₂ E⌋ - 1)`: the padded length then has only
/// `O(log log L)` significant bits, so it shows the order of magnitude of the size and a few bits more, and costs
/// under 12.5% at any size (under 6.25% from 256 bytes). Below ``minimum``, where Padmé rounds to a few bytes and
/// would show a short password's length, every content takes the same ``minimum`` bytes: an item with a typical
/// account, service and password is indistinguishable from any other such item.
///
/// The padding sits inside the AEAD box, so it is read only after authentication.
enum RecordPadding {
    /// The smallest padded length: every content shorter than this (less its marker) looks the same.
    static let minimum = 128

    /// The padded length for `count` bytes of content (its marker included).
    static func paddedCount(_ count: Int) -> Int {
        max(minimum, padmé(count + 1))
    }

    /// Padmé's length for `length` bytes: `length` rounded up so that all but its `⌊log₂ E⌋ + 1` highest
    /// significant bits are zero.
    static func padmé(_ length: Int) -> Int {
        guard length > 1 else { return length }
        let exponent = Int.bitWidth - 1 - length.leadingZeroBitCount
        let exponentBits = Int.bitWidth - exponent.leadingZeroBitCount
        let mask = (1 << (exponent - exponentBits)) - 1
        return (length + mask) & ~mask
    }

    /// `content`, its marker, then zeroes up to ``paddedCount(_:)``.
    static func pad(_ content: [UInt8]) -> [UInt8] {
        var padded = content
        let count = paddedCount(content.count)
        padded.reserveCapacity(count)
        padded.append(0x80)
        padded.append(contentsOf: [UInt8](repeating: 0, count: count - padded.count))
        return padded
    }

    /// How many bytes of `padded` (from ``pad(_:)``) are content: the marker is the last byte that is not zero.
    static func contentCount(of padded: [UInt8]) throws(EngineError) -> Int {
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80 else {
            throw EngineError(.decode, "a sealed item version's padding is malformed")
        }
        return marker
    }
}
