import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writing a whole buffer to a descriptor (a terminal, standard output): the prompts' and the `security` tool's.
package enum DescriptorWriting {
    /// Writes every byte, retrying short writes and interrupted calls; returns the error that stopped it, if any
    /// (`EIO` for a write that wrote nothing).
    @discardableResult
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return written < 0 ? errno : EIO
            }
        }
        return nil
    }
}
