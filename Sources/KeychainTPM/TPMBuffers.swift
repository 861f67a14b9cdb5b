import CSystem
import CTSS2

/// Copying bytes into and out of the TPM2B structures' fixed-size buffers, which Swift imports as tuples.
enum TPMBuffers {
    /// Copies `bytes` into `buffer` (a tuple of bytes) and returns the count for the structure's `size`, or throws
    /// naming `what` when they do not fit.
    static func fill<Buffer>(_ buffer: inout Buffer, with bytes: [UInt8], what: String) throws(TPMError) -> UInt16 {
        let capacity = MemoryLayout<Buffer>.size
        guard bytes.count <= capacity else {
            throw TPMError(.invalidArgument, "\(what) is \(bytes.count) bytes, more than the TPM takes (\(capacity))")
        }
        withUnsafeMutableBytes(of: &buffer) { raw in raw.copyBytes(from: bytes) }
        return UInt16(bytes.count)
    }

    /// The first `size` bytes of `buffer` (a tuple of bytes), never more than it holds.
    static func bytes<Buffer>(of buffer: Buffer, size: UInt16) -> [UInt8] {
        withUnsafeBytes(of: buffer) { raw in Array(raw.prefix(Int(size))) }
    }

    /// Overwrites a value the TPM stack allocated (it may hold a secret) with zeros, then frees it with Esys_Free.
    static func zeroAndFree<Value>(_ pointer: UnsafeMutablePointer<Value>?) {
        guard let pointer else { return }
        ck_zero(pointer, MemoryLayout<Value>.size)
        ck_Esys_Free(pointer)
    }
}
