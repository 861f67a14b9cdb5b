import Foundation
import KeychainCore

/// The wire form of messages: written and read field by field (``WireWriter``, ``WireReader``; version 1 was JSON
/// through `Codable`, whose encoding and decoding cost more than the request itself). The reader refuses anything
/// malformed with an error, never a crash — `make fuzz-daemon` feeds it garbage.
package enum DaemonCoding {
    /// The protocol version; a daemon refuses a client of another version with a message naming both. Version 4:
    /// writes answer what they stored and the change sequence they took, and file keys travel as keys. Version 5:
    /// keys are used where they are stored (`useKey`). Version 6: a registered service may ask for a process it
    /// speaks for (``DaemonEnvelope/forwarded``), and the sync verbs reach the keychain the daemon serves (`sync`).
    /// Version 7: a query may continue a listing after an item (``ItemQuery/startingAfter``: a backup reads in pages),
    /// a forwarded process carries the groups it reached the service with (``ForwardedProcess/groups``), and a
    /// connection may hold a write session (``DaemonRequest/beginWriteSession``: a restore streams into one).
    package static let version = 7

    /// The bytes of `message`; a message over the socket's limit (``SeqPacketSocket/messageLimit``) is refused. The
    /// caller wipes them once sent (``Swift/Array/wipe()``).
    package static func encode(_ message: some DaemonMessage) throws(EngineError) -> [UInt8] {
        var writer = WireWriter()
        message.write(to: &writer)
        guard writer.bytes.count <= SeqPacketSocket.messageLimit else {
            writer.bytes.wipe()
            throw EngineError(
                .dataTooLarge,
                "a keychaind message of \(writer.bytes.count) bytes exceeds the limit of \(SeqPacketSocket.messageLimit)"
            )
        }
        return writer.bytes
    }

    /// The message `bytes` hold, all of them; anything else is errSecParam naming what is wrong and where.
    package static func decode<Message: DaemonMessage>(
        _ type: Message.Type, from bytes: [UInt8]
    ) throws(EngineError) -> Message {
        do throws(EngineError) {
            var reader = WireReader(bytes)
            let message = try Message(wire: &reader)
            try reader.finish()
            return message
        } catch {
            throw EngineError(.param, "a malformed keychaind message (\(bytes.count) bytes): \(error.message)")
        }
    }

    /// Whether `bytes` are a message of protocol version 1, JSON (an object: no binary message starts with `{`), so
    /// each side can tell the other which versions meet instead of calling its messages malformed.
    package static func isVersion1(_ bytes: [UInt8]) -> Bool {
        bytes.first == UInt8(ascii: "{")
    }

    /// A version-1 client's hello, read as version 1 wrote it (JSON: `{"request":{"hello":{"version":1}}}`),
    /// answered in version 1's form: the failure naming both versions, which a version-1 client shows as the
    /// daemon's error.
    package static func version1Refusal(of bytes: [UInt8]) -> [UInt8] {
        let refusal = Version1Failure(
            failure: .init(
                error: EngineError(
                    .param,
                    "this keychaind speaks protocol version \(version); the client sent \(version1Request(in: bytes))"))
        )
        return (try? JSONEncoder().encode(refusal)).map(Array.init) ?? []
    }

    /// What a version-1 message asked, as version 1 named it (`hello(version: 1)`).
    private static func version1Request(in bytes: [UInt8]) -> String {
        guard let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let request = message["request"] as? [String: Any], let kind = request.keys.first, request.count == 1
        else { return "a version 1 message" }
        guard kind == "hello", let fields = request[kind] as? [String: Any], let sent = fields["version"] as? Int
        else { return kind }
        return "hello(version: \(sent))"
    }

    /// Version 1's JSON form of a failure reply, as its `Codable` enum wrote it.
    private struct Version1Failure: Encodable {
        struct Payload: Encodable {
            let error: EngineError
            enum CodingKeys: String, CodingKey { case error = "_0" }
        }
        let failure: Payload
    }
}
