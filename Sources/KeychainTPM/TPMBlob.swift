/// An object the TPM made and wrapped under its storage primary key: the object's public area and its private area
/// (encrypted and integrity-protected by the TPM, useless without that TPM), in a small versioned format of our own.
///
/// The format: "STPM", the version (1), the kind, then the marshalled TPM2B_PUBLIC and TPM2B_PRIVATE, each after
/// its length as two big-endian bytes; nothing after them.
public struct TPMBlob: Sendable, Hashable {
    /// What the wrapped object is, so that a blob given to the wrong operation is refused before it reaches the TPM.
    public enum Kind: UInt8, Sendable, CustomStringConvertible {
        /// Data sealed by ``TPMContext/seal(_:)``.
        case sealedData = 1
        /// An HMAC-SHA256 key made by ``TPMContext/createHMACKey(auth:)``.
        case hmacKey = 2
        /// A P-256 key made by ``TPMContext/createP256Key(auth:)``.
        case p256Key = 3

        /// The kind's name.
        public var description: String {
            switch self {
            case .sealedData: "sealed data"
            case .hmacKey: "HMAC key"
            case .p256Key: "P-256 key"
            }
        }
    }

    private static let magic: [UInt8] = Array("STPM".utf8)
    private static let version: UInt8 = 1

    /// What the object is.
    public let kind: Kind
    /// The marshalled TPM2B_PUBLIC.
    public let publicArea: [UInt8]
    /// The marshalled TPM2B_PRIVATE (encrypted by the TPM).
    public let privateArea: [UInt8]

    init(kind: Kind, publicArea: [UInt8], privateArea: [UInt8]) {
        self.kind = kind
        self.publicArea = publicArea
        self.privateArea = privateArea
    }

    /// The blob's bytes, to store.
    public func serialized() -> [UInt8] {
        var bytes = Self.magic + [Self.version, kind.rawValue]
        for part in [publicArea, privateArea] {
            bytes += [UInt8(part.count >> 8), UInt8(part.count & 0xFF)] + part
        }
        return bytes
    }

    /// Reads a blob from the bytes ``serialized()`` gave, refusing anything else with an error naming what is wrong.
    public init(serialized bytes: [UInt8]) throws(TPMError) {
        guard bytes.count >= 6, Array(bytes[0..<4]) == Self.magic else {
            throw TPMError(.invalidBlob, "not a TPM blob (\(bytes.count) bytes, no \"STPM\" header)")
        }
        guard bytes[4] == Self.version else {
            throw TPMError(.invalidBlob, "TPM blob version \(bytes[4]) is not supported (this build reads 1)")
        }
        guard let kind = Kind(rawValue: bytes[5]) else {
            throw TPMError(.invalidBlob, "TPM blob kind \(bytes[5]) is unknown")
        }
        var offset = 6
        var parts: [[UInt8]] = []
        for name in ["public area", "private area"] {
            guard offset + 2 <= bytes.count else {
                throw TPMError(.invalidBlob, "TPM blob is cut short in its \(name)")
            }
            let count = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard offset + count <= bytes.count else {
                throw TPMError(.invalidBlob, "TPM blob is cut short: its \(name) claims \(count) bytes")
            }
            parts.append(Array(bytes[offset..<offset + count]))
            offset += count
        }
        guard offset == bytes.count else {
            throw TPMError(.invalidBlob, "TPM blob has \(bytes.count - offset) bytes after its private area")
        }
        self.init(kind: kind, publicArea: parts[0], privateArea: parts[1])
    }

    /// Throws unless the blob is of `kind`, naming both.
    func require(_ expected: Kind) throws(TPMError) {
        guard kind == expected else {
            throw TPMError(.invalidBlob, "the TPM blob holds a \(kind), not a \(expected)")
        }
    }
}

/// Data sealed to a TPM (``TPMContext/seal(_:)``).
public typealias SealedBlob = TPMBlob
