import Foundation

/// A device's public keys and name, as other devices see them: the X25519 key the circle's keys are sealed to and
/// the Ed25519 key its records are signed with.
///
/// The device id is a digest of both keys, so a store cannot pair an id with other keys; the join code is another
/// digest of them, short enough to read out, so a store that swapped a join request is caught on approval.
public struct PublicIdentity: Sendable, Hashable, Codable {
    /// The X25519 public key (32 bytes).
    public var agreementKey: Data
    /// The Ed25519 public key (32 bytes).
    public var signingKey: Data
    /// The name the user gave the device (`--device`).
    public var name: String

    /// Creates an identity value.
    public init(agreementKey: Data, signingKey: Data, name: String) {
        self.agreementKey = agreementKey
        self.signingKey = signingKey
        self.name = name
    }

    /// The device id: 32 hexadecimal digits of a digest of both public keys.
    public var deviceID: String {
        get throws(SyncError) {
            PublicDigest.hex(
                try PublicDigest.digest("swift-keychain sync device id", agreementKey + signingKey, byteCount: 16))
        }
    }

    /// The join code: ten characters (Crockford base32, 50 bits) of another digest of both public keys, as
    /// `XXXXX-XXXXX`.
    public var joinCode: String {
        get throws(SyncError) {
            let digest = try PublicDigest.digest(
                "swift-keychain sync join code", agreementKey + signingKey, byteCount: 16)
            var bits: UInt64 = 0
            for byte in digest.prefix(8) { bits = bits << 8 | UInt64(byte) }
            let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
            var characters: [Character] = []
            for index in 0..<10 { characters.append(alphabet[Int(bits >> UInt64(59 - index * 5)) & 31]) }
            return String(characters[0..<5]) + "-" + String(characters[5..<10])
        }
    }

    /// A code as typed (any case, with or without the dash or spaces), in ``joinCode``'s form, or `nil` when it is
    /// not one.
    static func normalizedCode(_ typed: String) -> String? {
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let characters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard characters.count == 10, characters.allSatisfy(alphabet.contains) else { return nil }
        return String(characters.prefix(5)) + "-" + String(characters.suffix(5))
    }
}
