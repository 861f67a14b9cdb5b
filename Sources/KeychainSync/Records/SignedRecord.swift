import Foundation
import KeychainCore

/// The bytes of a record: the author's Ed25519 signature, then the JSON body.
///
/// The signature covers the record's name too, so a record copied under another name (another device's log,
/// another sequence) fails to verify.
enum SignedRecord {
    /// Encodes and signs `value` as the record `name`.
    static func seal<Value: Encodable>(
        _ value: Value, name: String, signer: SigningKeyPair
    ) throws(SyncError) -> [UInt8] {
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch {
            throw SyncError(.invalidArgument, "cannot encode the record \(name): \(error)")
        }
        return [UInt8](signer.sign(message(name: name, body: body)) + body)
    }

    /// The body of a record without checking its signature (to learn its author before verifying).
    static func unverifiedBody<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8], name: String) throws(SyncError)
        -> Value
    {
        guard bytes.count > SigningKeyPair.signatureByteCount else {
            throw SyncError(.damaged, "the record \(name) is too short to be a signed record")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(bytes[SigningKeyPair.signatureByteCount...]))
        } catch {
            throw SyncError(.damaged, "the record \(name) does not parse: \(error)")
        }
    }

    /// Whether the record's signature is `publicKey`'s over its name and body.
    static func isSigned(_ bytes: [UInt8], name: String, by publicKey: Data) -> Bool {
        guard bytes.count > SigningKeyPair.signatureByteCount else { return false }
        let signature = Data(bytes[..<SigningKeyPair.signatureByteCount])
        let body = Data(bytes[SigningKeyPair.signatureByteCount...])
        return SigningKeyPair.isValid(signature, of: message(name: name, body: body), publicKey: publicKey)
    }

    private static func message(name: String, body: Data) -> Data {
        Data("swift-keychain sync record v1".utf8) + [0] + Data(name.utf8) + [0] + body
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

/// A device's identity record: its public keys and name, signed by its own Ed25519 key.
struct IdentityRecord: Codable, Sendable {
    var format = 1
    var identity: PublicIdentity
    /// A joining device's commitment to its pairing nonce (``JoinPairing``), fixed before any member answers.
    var commitment: Data?

    /// The commitment of the identity record `bytes` (verified by ``verified(_:name:device:)`` first).
    static func commitment(_ bytes: [UInt8], name: String) -> Data? {
        (try? SignedRecord.unverifiedBody(IdentityRecord.self, bytes, name: name))?.commitment
    }

    /// Verifies an identity record read as `name`: it parses, its keys hash to the device id its name carries, and
    /// it is signed by its own key.
    static func verified(_ bytes: [UInt8], name: String, device: String) throws(SyncError) -> PublicIdentity {
        let record = try SignedRecord.unverifiedBody(IdentityRecord.self, bytes, name: name)
        guard try record.identity.deviceID == device else {
            throw SyncError(.damaged, "the identity record \(name) holds the keys of another device")
        }
        guard SignedRecord.isSigned(bytes, name: name, by: record.identity.signingKey) else {
            throw SyncError(.damaged, "the identity record \(name) is not signed by its device")
        }
        return record.identity
    }
}
