import Security

/// How long the things the tool reads may be. A longer one is refused whole, never cut: a secret is stored as
/// given or not at all, and a session line runs as typed or not at all.
enum InputLimits {
    /// The longest secret: 16 MiB, the engine's own limit on an item's data (KeychainCore's `ItemValidator`), so a
    /// secret the tool accepts is one the keychain stores.
    static let secretByteCount = 16 << 20

    /// The longest `security -i` line: room for a secret of the longest kind as `-X` hex (two digits a byte), and
    /// 64 KiB for the command around it.
    static let sessionLineByteCount = 2 * secretByteCount + (64 << 10)

    /// `16777216 bytes (16 MiB)`: a limit as messages state it.
    static func describe(_ byteCount: Int) -> String {
        byteCount % (1 << 20) == 0 ? "\(byteCount) bytes (\(byteCount >> 20) MiB)" : "\(byteCount) bytes"
    }

    /// Refuses a secret longer than ``secretByteCount``, naming what it is and the limit (`errSecParam`).
    static func checkSecret(byteCount: Int, _ what: String) throws(ToolFailure) {
        guard byteCount > secretByteCount else { return }
        throw tooLong(what, byteCount: byteCount)
    }

    /// The failure for a secret of `byteCount` bytes over the limit: `errSecParam`, naming the limit.
    static func tooLong(_ what: String, byteCount: Int) -> ToolFailure {
        .failed(
            status: errSecParam,
            message:
                "\(what) is \(byteCount) bytes, longer than the limit of \(describe(secretByteCount)); nothing was stored"
        )
    }
}
