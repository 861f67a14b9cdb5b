import Foundation

extension UUID {
    /// A random (version 4) UUID from libsodium's generator: one `getrandom` call, where Foundation's `UUID()` opens,
    /// reads and closes `/dev/urandom` on Linux (three system calls on every item added).
    package static func random() throws(EngineError) -> UUID {
        var bytes = try RandomBytes.make(count: 16)
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
