import Foundation
import KeychainCore

/// The service's methods (`org.freedesktop.Secret.Service` at `/org/freedesktop/secrets`).
extension SecretService {
    func service(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        switch call.member {
        case "OpenSession": try openSession(call, reply: reply)
        case "CreateCollection": try createCollection(call, reply: reply)
        case "SearchItems":
            let query = try call.readStringDictionary()
            var paths: [String] = []
            for collection in try engine({ () throws(EngineError) in try store.collections() }) {
                paths += try search(query, in: collection.name)
            }
            let locked = isLocked
            try reply.append(paths: locked ? [] : paths)
            try reply.append(paths: locked ? paths : [])
        case "GetSecrets":
            let items = try call.readPaths()
            let session = try call.readString("o")
            _ = try self.session(session)
            try ensureUnlocked()
            try reply.container("a", "{o(oayays)}") { () throws(BusFailure) in
                for path in items {
                    guard case .item(let name, let reference)? = try? object(at: path),
                        let secret = try? store.collection(name).secret(of: reference)
                    else { continue }
                    try reply.container("e", "o(oayays)") { () throws(BusFailure) in
                        try reply.append(path, as: "o")
                        try append(secret: secret.value, contentType: secret.contentType, session: session, to: reply)
                    }
                }
            }
        case "ReadAlias":
            let alias = try call.readString()
            let target = try engine { () throws(EngineError) in try store.aliases() }[alias]
            try reply.append(target.map(Self.path(ofCollection:)) ?? "/", as: "o")
        case "SetAlias":
            let alias = try call.readString()
            let path = try call.readString("o")
            guard SecretItemStore.isAliasName(alias) else {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.InvalidArgs",
                    message: "the alias \"\(alias)\" is not a name of lowercase letters, digits and _")
            }
            var target: String?
            if path != "/" {
                guard case .collection(let name) = try object(at: path) else {
                    throw BusFailure(
                        name: "org.freedesktop.Secret.Error.NoSuchObject", message: "\(path) is not a collection")
                }
                target = name
            }
            try engine { () throws(EngineError) in try store.setAlias(alias, to: target) }
        case "Unlock":
            let objects = try call.readPaths()
            if isLocked {
                try reply.append(paths: [])
                try reply.append(makePrompt(.unlock(objects)), as: "o")
            } else {
                try reply.append(paths: objects)
                try reply.append("/", as: "o")
            }
        case "Lock":
            let objects = try call.readPaths()
            try engine { () throws(EngineError) in try store.backend.lock() }
            let locked = isLocked
            try reply.append(paths: locked ? objects : [])
            try reply.append("/", as: "o")
            if locked { lockChanged() }
        default: throw .unknownMethod(call)
        }
    }

    private func openSession(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        let algorithm = try call.readString()
        let path = "\(Self.root)/session/\(nextSession)"
        guard let opener = store.identities.currentSender() else {
            throw BusFailure(name: "org.freedesktop.DBus.Error.Failed", message: "OpenSession: a call without a sender")
        }
        // Sessions end with their connection; while it lasts, it holds at most this many (else one program of the
        // user could grow the service's memory without end).
        guard sessionOwners.values.count(where: { $0 == opener }) < Self.sessionsPerConnection else {
            throw BusFailure(
                name: "org.freedesktop.DBus.Error.LimitsExceeded",
                message: "this connection has \(Self.sessionsPerConnection) sessions open: Close one first")
        }
        switch algorithm {
        case "plain":
            try call.skip("v")
            sessions[path] = .some(nil)
            try reply.container("v", "s") { () throws(BusFailure) in try reply.append("") }
        case "dh-ietf1024-sha256-aes128-cbc-pkcs7":
            var clientPublic = Data()
            let entered = try call.enter("v", "ay") { () throws(BusFailure) in clientPublic = try call.readBytes() }
            guard entered else {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.InvalidArgs", message: "the session input must be a byte array")
            }
            let (session, servicePublic) = try EncryptedSession.open(clientPublic: clientPublic)
            sessions[path] = .some(session)
            try reply.container("v", "ay") { () throws(BusFailure) in try reply.append(bytes: servicePublic) }
        default:
            throw .notSupported(
                "the session algorithm \(algorithm) is not supported (plain, dh-ietf1024-sha256-aes128-cbc-pkcs7)")
        }
        sessionOwners[path] = opener
        nextSession += 1
        try reply.append(path, as: "o")
    }

    /// `CreateCollection(properties, alias)`: the collection the alias names when it exists, else a new one (an
    /// access group named after its label), given the alias.
    private func createCollection(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        var label = ""
        try call.readArray(of: "{sv}") { () throws(BusFailure) in
            _ = try call.enter("e", "sv") { () throws(BusFailure) in
                if try call.readString() == "org.freedesktop.Secret.Collection.Label" {
                    _ = try call.enter("v", "s") { () throws(BusFailure) in label = try call.readString() }
                } else {
                    try call.skip("v")
                }
            }
        }
        let alias = try call.readString()
        if !alias.isEmpty {
            guard SecretItemStore.isAliasName(alias) else {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.InvalidArgs",
                    message: "the alias \"\(alias)\" is not a name of lowercase letters, digits and _")
            }
            if let existing = try engine({ () throws(EngineError) in try store.aliases() })[alias],
                try collectionExists(existing)
            {
                try reply.append(Self.path(ofCollection: existing), as: "o")
                return try reply.append("/", as: "o")
            }
        }
        let created = try engine { () throws(EngineError) in
            let created = try store.createCollection(label: label)
            if !alias.isEmpty { try store.setAlias(alias, to: created.name) }
            return created
        }
        try reply.append(Self.path(ofCollection: created.name), as: "o")
        try reply.append("/", as: "o")
        collectionSignal("CollectionCreated", collection: created.name)
    }

    /// The paths of a collection's items whose map holds every pair of `query` (none while the keychain has never
    /// been unlocked, when no map can be read).
    func search(_ query: [String: String], in collection: String) throws(BusFailure) -> [String] {
        do throws(EngineError) {
            return try store.collection(collection).search(query).map { Self.path(of: $0.reference, in: collection) }
        } catch  where error.code == .interactionNotAllowed {
            return []
        } catch {
            throw Self.failure(error)
        }
    }

    /// Tells clients that every collection changed (its `Locked`).
    func lockChanged() {
        for collection in (try? store.collections()) ?? [] {
            collectionSignal("CollectionChanged", collection: collection.name)
            signal(Self.path(ofCollection: collection.name), Self.propertiesInterface, "PropertiesChanged") {
                (m) throws(BusFailure) in
                try m.append(Self.collectionInterface)
                try m.container("a", "{sv}") { () throws(BusFailure) in
                    try m.container("e", "sv") { () throws(BusFailure) in
                        try m.append("Locked")
                        try m.container("v", "b") { () throws(BusFailure) in try m.append(isLocked) }
                    }
                }
                try m.container("a", "s") {}
            }
        }
    }
}
