import CSodium
import Foundation

/// A passcode or password (the keychain passcode, an item's application password) as bytes in guarded memory: a
/// `SecureBytes` region, locked and zeroed when the last copy is released. What the prompters read, the
/// authentication loop carries, the daemon's wire moves and Argon2id stretches, never a Swift `String`.
///
/// The bytes are the passcode's UTF-8 when it was given as text (``init(copying:)-(String)``), so a keychain whose
/// passcode was set as a `String` opens with the same passcode typed at a prompt. A passcode cannot be printed
/// (`description` is redacted) and compares in constant time. May be empty (a passcode operation then says why it
/// refuses one).
public struct Passcode: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The bytes; `nil` when there are none (guarded memory cannot be empty).
    private let storage: SecureBytes?

    /// An empty passcode.
    public init() {
        storage = nil
    }

    /// A passcode of `text`'s UTF-8 bytes, copied into guarded memory. For the `String`-taking conveniences of the
    /// APIs: the `String` is the caller's, and stays wherever the caller keeps it.
    public init(copying text: String) throws(EngineError) {
        try self.init(copying: text.utf8)
    }

    /// A passcode of these bytes, copied straight into guarded memory (the caller wipes its own copy).
    public init(copying bytes: some Collection<UInt8>) throws(EngineError) {
        guard !bytes.isEmpty else {
            storage = nil
            return
        }
        let storage = try SecureBytes(count: bytes.count)
        storage.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        self.storage = storage
    }

    /// A passcode that takes over guarded memory already filled (a prompter's).
    package init(_ bytes: SecureBytes) {
        storage = bytes
    }

    /// Whether there are no bytes.
    public var isEmpty: Bool { storage == nil }

    /// How many bytes there are.
    public var byteCount: Int { storage?.count ?? 0 }

    /// Whether the bytes are UTF-8 (checked without making text of them).
    public var isValidUTF8: Bool {
        withUnsafeBytes { bytes in
            var iterator = bytes.makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            while true {
                switch parser.parseScalar(from: &iterator) {
                case .valid: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }

    /// Reads the bytes (an empty buffer with a valid address when there are none). The buffer must not escape.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let storage { return try storage.withUnsafeBytes(body) }
        return try body(UnsafeRawBufferPointer(start: Self.nothing, count: 0))
    }

    /// Where an empty passcode's no bytes are: libsodium takes a non-null pointer even for none. Never written.
    private nonisolated(unsafe) static let nothing = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// Compares in constant time (for equal lengths).
    public static func == (lhs: Passcode, rhs: Passcode) -> Bool {
        guard lhs.byteCount == rhs.byteCount else { return false }
        guard let left = lhs.storage, let right = rhs.storage else { return true }
        return left.constantTimeEquals(right)
    }

    /// A redacted description: a passcode is never printed.
    public var description: String { "Passcode(redacted)" }

    /// Encodes the bytes as `Data`: an encoder's output is ordinary memory (keychaind's wire does not use this).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(withUnsafeBytes { Data($0) })
    }

    /// Decodes bytes encoded by ``encode(to:)``, wiping the decoder's copy.
    public init(from decoder: any Decoder) throws {
        var data = try decoder.singleValueContainer().decode(Data.self)
        defer { data.resetBytes(in: 0..<data.count) }
        try self.init(copying: data)
    }
}
