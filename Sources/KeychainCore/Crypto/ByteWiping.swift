import CSystem

extension Array where Element == UInt8 {
    /// Overwrites the bytes with zeros where they are, in a way the compiler cannot drop (a plain store before the
    /// storage is freed may be). The storage is zeroed in place even when other values share it (a copy-on-write
    /// would zero a fresh copy and leave the bytes where they were): call it only once no one needs them.
    package func wipe() {
        withUnsafeBufferPointer { ck_zero(UnsafeMutableRawPointer(mutating: $0.baseAddress), $0.count) }
    }

    /// Zeroes the first `count` bytes (every byte when there are fewer) as ``wipe()`` does: for a buffer reused for
    /// plaintexts of different lengths.
    package func wipe(first count: Int) {
        withUnsafeBufferPointer {
            ck_zero(UnsafeMutableRawPointer(mutating: $0.baseAddress), Swift.min(Swift.max(0, count), $0.count))
        }
    }
}
