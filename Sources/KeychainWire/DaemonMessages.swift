import Foundation
import KeychainCore

/// What a client asks keychaind: one ``KeychainBackend`` requirement (the caller is not part of it: the daemon
/// decides who is calling from the kernel's credentials on each message), or one of the daemon's own requests.
package enum DaemonRequest: Codable, Sendable, Equatable {
    /// The first message of every connection: the protocol version the client speaks.
    case hello(version: Int)
    case add(NewItem)
    case addBatch([NewItem])
    case addOrUpdate(NewItem)
    case copyMatching(ItemQuery)
    case update(ItemQuery, ItemChanges)
    case delete(ItemQuery)
    case keybagStatus
    /// Passcodes travel as bytes, read from the message straight into guarded memory (``Passcode``).
    case unlock(passcode: Passcode)
    case lock
    case setPasscode(Passcode, current: Passcode?)
    case removePasscode(current: Passcode)
    /// The threshold and the current passcode that vouches for it (which only root may leave out).
    case setEraseAfter(Int, passcode: Passcode?)
    case canOpenFiles(FileKeyClass)
    /// A file key's 32 bytes travel as data: only the daemon's reply to the process that asked ever holds them.
    case wrapFileKey(key: Data, FileKeyClass, context: [UInt8])
    case unwrapFileKey(Data, FileKeyClass, context: [UInt8])
    case fileHeaderTag([UInt8])
    case isValidFileHeaderTag(Data, [UInt8])
    case verify
    case changes(since: Int64, limit: Int)
    case latestChangeSequence
    /// Turns the connection into a notice channel: the daemon sends ``DaemonReply/changed`` whenever the feed of
    /// the caller's keychain may have grown, and accepts nothing more on it.
    case subscribe
    /// Root only: registers the executable at `path` with its entitlements plist.
    case registerApp(path: String, entitlements: Data, allowsInsecureExecution: Bool)
    /// Root only: removes a registration.
    case unregisterApp(path: String)
    /// The registered apps.
    case listApps
    /// Which backend answered and for whom (`security show-keychain-info`).
    case describe
    /// Checks the passcode without unlocking (`LAContext.evaluatePolicy`); new in protocol version 3.
    case checkPasscode(Passcode)
}

/// One request with the keychain it is for: `user` names another user's keychain, which only root may do.
/// `caller` is the identity the client's API was given; the daemon ignores it for everyone but root (who may act
/// as any app of any user: administration tools and tests), and decides every other sender's identity itself.
package struct DaemonEnvelope: Codable, Sendable, Equatable {
    package var user: UInt32?
    package var caller: Caller?
    package var request: DaemonRequest

    package init(user: UInt32? = nil, caller: Caller? = nil, request: DaemonRequest) {
        self.user = user
        self.caller = caller
        self.request = request
    }
}

/// A registered app as `list-apps` shows it.
package struct RegisteredApp: Codable, Sendable, Equatable {
    package var path: String
    package var sha256: String
    package var applicationIdentifier: String
    package var accessGroups: [String]
    package var allowsInsecureExecution: Bool

    package init(
        path: String, sha256: String, applicationIdentifier: String, accessGroups: [String],
        allowsInsecureExecution: Bool
    ) {
        self.path = path
        self.sha256 = sha256
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
        self.allowsInsecureExecution = allowsInsecureExecution
    }
}

/// Who the daemon says is calling, and where its keychain is.
package struct DaemonDescription: Codable, Sendable, Equatable {
    package var uid: UInt32
    package var applicationIdentifier: String
    package var accessGroups: [String]
    package var isRegisteredApp: Bool

    package init(uid: UInt32, applicationIdentifier: String, accessGroups: [String], isRegisteredApp: Bool) {
        self.uid = uid
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
        self.isRegisteredApp = isRegisteredApp
    }
}

/// What keychaind answers: the requirement's result, or the error the engine threw.
package enum DaemonReply: Codable, Sendable, Equatable {
    case welcome(version: Int)
    case item(Item)
    case items([Item])
    case count(Int)
    case keybagStatus(KeybagStatus)
    case done
    case bool(Bool)
    case data(Data)
    case report(VerificationReport)
    case changes(ChangeBatch)
    case sequence(Int64)
    case apps([RegisteredApp])
    case description(DaemonDescription)
    /// On a subscribed connection: the feed may have grown.
    case changed
    case failure(EngineError)
}

/// The wire form of messages: written and read field by field (``WireWriter``, ``WireReader``; version 1 was JSON
/// through `Codable`, whose encoding and decoding cost more than the request itself). The reader refuses anything
/// malformed with an error, never a crash — `make fuzz-daemon` feeds it garbage.
package enum DaemonCoding {
    /// The protocol version; a daemon refuses a client of another version with a message naming both.
    package static let version = 3

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

    /// A version-1 client's hello, read as version 1 wrote it, answered in version 1's form: the failure naming
    /// both versions, which a version-1 client shows as the daemon's error.
    package static func version1Refusal(of bytes: [UInt8]) -> [UInt8] {
        let sent = (try? JSONDecoder().decode(DaemonEnvelope.self, from: Data(bytes))).map { "\($0.request)" }
        let refusal = DaemonReply.failure(
            EngineError(
                .param,
                "this keychaind speaks protocol version \(version); the client sent \(sent ?? "a version 1 message")"))
        return (try? JSONEncoder().encode(refusal)).map(Array.init) ?? []
    }
}
