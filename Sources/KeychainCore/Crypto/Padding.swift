/// Length-hiding padding for sealed values: a 4-byte little-endian length, the payload, then zeroes up to a
/// multiple of ``blockSize``, so a sealed value reveals only a bucket of its length.
///
/// The padding sits inside the AEAD box, so it is read only after authentication: reading the length needs no
/// constant-time care.
package enum Padding {
    /// The bucket size in bytes.
    package static let blockSize = 32

    /// Pads `bytes` to a multiple of `bucket`, itself a multiple of ``blockSize`` (sync records use larger buckets).
    package static func pad(_ bytes: some Collection<UInt8>, bucket: Int = blockSize) -> [UInt8] {
        let paddedCount = (4 + bytes.count + bucket - 1) / bucket * bucket
        var padded: [UInt8] = []
        padded.reserveCapacity(paddedCount)
        padded.appendLittleEndian(UInt32(bytes.count))
        padded.append(contentsOf: bytes)
        padded.append(contentsOf: repeatElement(0, count: paddedCount - padded.count))
        return padded
    }

    /// Where the payload lies in a value padded by ``pad(_:)``.
    package static func payload(of padded: [UInt8]) throws(EngineError) -> Range<Int> {
        guard padded.count >= 4, padded.count % blockSize == 0 else {
            throw .decode("a sealed value's padding is malformed")
        }
        let count = Int(padded[0]) | Int(padded[1]) << 8 | Int(padded[2]) << 16 | Int(padded[3]) << 24
        guard count <= padded.count - 4 else { throw .decode("a sealed value's length is out of range") }
        return 4..<(4 + count)
    }
}
