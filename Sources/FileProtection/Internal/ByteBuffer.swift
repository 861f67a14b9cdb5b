/// A fixed-size buffer of raw memory for one chunk of a stream, zeroed before it is released (it may hold
/// plaintext). Raw memory rather than an array, so the hot loops pass it to the system and to the cipher without
/// a closure per call.
final class ByteBuffer {
    /// The memory.
    let bytes: UnsafeMutableRawBufferPointer

    /// Allocates `count` zeroed bytes.
    init(count: Int) {
        bytes = .allocate(byteCount: count, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        zero()
        bytes.deallocate()
    }

    /// The number of bytes.
    var count: Int { bytes.count }

    /// The first `count` bytes, to read.
    func prefix(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[0..<count])
    }

    /// The bytes in `range`, to write.
    func slice(_ range: Range<Int>) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: bytes[range])
    }

    /// Overwrites the bytes with zeroes.
    func zero() {
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }
}
