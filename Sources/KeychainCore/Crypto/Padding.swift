import CSodium

/// ISO/IEC 7816-4 padding (`sodium_pad`) so that sealed values reveal only a bucket of their length.
enum Padding {
    /// The bucket size in bytes.
    static let blockSize = 32

    /// Pads `bytes` to a multiple of ``blockSize`` (always adding at least one byte).
    static func pad(_ bytes: [UInt8]) -> [UInt8] {
        var padded = bytes + [UInt8](repeating: 0, count: blockSize)
        var paddedCount = 0
        _ = padded.withUnsafeMutableBytes { buffer in
            sodium_pad(&paddedCount, buffer.sodiumPointer, bytes.count, blockSize, buffer.count)
        }
        padded.removeLast(padded.count - paddedCount)
        return padded
    }

    /// Removes padding added by ``pad(_:)``.
    static func unpad(_ bytes: [UInt8]) throws(EngineError) -> [UInt8] {
        var unpadded = bytes
        unpadded.removeLast(bytes.count - (try unpaddedCount(bytes)))
        return unpadded
    }

    /// The length of `bytes` without the padding added by ``pad(_:)``.
    static func unpaddedCount(_ bytes: [UInt8]) throws(EngineError) -> Int {
        var count = 0
        let status = bytes.withUnsafeBytes { buffer in
            sodium_unpad(&count, buffer.sodiumPointer, buffer.count, blockSize)
        }
        guard status == 0 else { throw .decode("a sealed value's padding is malformed") }
        return count
    }
}
