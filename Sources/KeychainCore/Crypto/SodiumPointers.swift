/// libsodium declares its buffers non-null even when their length is zero; an empty Swift buffer has no base
/// address. These give a valid pointer in both cases (a shared byte that is never read or written at length 0).
nonisolated(unsafe) private let emptyByte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

extension UnsafeRawBufferPointer {
    /// The buffer's bytes as libsodium takes them.
    var sodiumPointer: UnsafePointer<UInt8> {
        baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(emptyByte)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The buffer's bytes as libsodium takes them.
    var sodiumPointer: UnsafeMutablePointer<UInt8> {
        baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyByte
    }
}
