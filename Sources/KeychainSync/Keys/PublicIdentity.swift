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
    /// `XXXXX-XXXXX`: short enough to read out.
    public var joinCode: String {
        get throws(SyncError) { try code("swift-keychain sync join code", characters: 10) }
    }

    /// The circle code of the circle this device founded: twenty characters (100 bits) of a third digest of both
    /// public keys, as `XXXXX-XXXXX-XXXXX-XXXXX`. It is copied, not read aloud, so it can be long enough that a
    /// store, which knows every public key, cannot grind a key pair of its own to match it.
    public var circleCode: String {
        get throws(SyncError) { try code("swift-keychain sync circle code", characters: Self.circleCodeLength) }
    }

    /// How many characters a circle code has (5 bits each).
    static let circleCodeLength = 20

    /// `characters` Crockford base32 characters of the digest labelled `label` of both keys, in groups of five.
    private func code(_ label: String, characters count: Int) throws(SyncError) -> String {
        let digest = try PublicDigest.digest(label, agreementKey + signingKey, byteCount: 16)
        return Self.base32(digest, characters: count)
    }

    /// The first `count` characters of `bytes` in Crockford base32, in groups of five joined by dashes.
    static func base32(_ bytes: Data, characters count: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var characters: [Character] = []
        var accumulator = 0
        var bits = 0
        for byte in bytes where characters.count < count {
            accumulator = (accumulator << 8 | Int(byte)) & 0xFFFF
            bits += 8
            while bits >= 5 && characters.count < count {
                characters.append(alphabet[(accumulator >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        return stride(from: 0, to: characters.count, by: 5).map {
            String(characters[$0..<min($0 + 5, characters.count)])
        }
        .joined(separator: "-")
    }

    /// A code as typed (any case, with or without dashes or spaces) in the form of a code of `characters`
    /// characters, or `nil` when it is not one.
    static func normalizedCode(_ typed: String, characters count: Int = 10) -> String? {
        let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let characters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard characters.count == count, characters.allSatisfy(alphabet.contains) else { return nil }
        return stride(from: 0, to: count, by: 5).map { start in
            String(
                characters[
                    characters.index(
                        characters.startIndex, offsetBy: start)..<characters.index(
                            characters.startIndex, offsetBy: min(start + 5, count))])
        }.joined(separator: "-")
    }
}
