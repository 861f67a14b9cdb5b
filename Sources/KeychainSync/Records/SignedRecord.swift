import Foundation
import KeychainCore

/// The bytes of a record: the author's Ed25519 signature, then the body (JSON, or format 3 for item and tombstone
/// log entries: ``CompactEntry``).
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

    /// Signs `entry` as the record `name`: an item or tombstone in format 3 (``CompactEntry``), anything else (or an
    /// entry format 3 cannot hold) as JSON.
    static func seal(_ entry: LogEntry, name: String, signer: SigningKeyPair) throws(SyncError) -> [UInt8] {
        guard let body = CompactEntry.encode(entry, name: name) else {
            return try seal(JSONBody(entry), name: name, signer: signer)
        }
        return [UInt8](signer.sign(message(name: name, body: Data(body)))) + body
    }

    /// The log entry of a record, in any format, without checking its signature: format 3 takes its author and
    /// sequence from `name`; formats 1 and 2 (JSON) say them (and the caller checks them against `name`).
    static func unverifiedBody(_ type: LogEntry.Type, _ bytes: [UInt8], name: String) throws(SyncError) -> LogEntry {
        let start = SigningKeyPair.signatureByteCount
        guard bytes.count > start, CompactEntry.isCompact(bytes[start...]) else {
            return try unverifiedBody(JSONBody.self, bytes, name: name).entry
        }
        return try CompactEntry.decode(bytes, range: start..<bytes.count, name: name)
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

/// A log entry as JSON (formats 1 and 2): a wrapper, so that a log entry is never encoded as JSON by accident.
private struct JSONBody: Codable {
    var entry: LogEntry

    init(_ entry: LogEntry) { self.entry = entry }
    init(from decoder: any Decoder) throws { entry = try LogEntry(from: decoder) }
    func encode(to encoder: any Encoder) throws { try entry.encode(to: encoder) }
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
