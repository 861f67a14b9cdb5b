import CSDBus
import Foundation
import KeychainCore

/// The Secret Service's objects under `/org/freedesktop/secrets` (the freedesktop Secret Service API, version 0.2):
/// the service, the collection `login` (also `aliases/default`), its items and the sessions. Calls arrive one at a
/// time from the bus loop; each is answered here, or with the D-Bus error it raised.
final class SecretService {
    static let root = "/org/freedesktop/secrets"
    static let collection = root + "/collection/login"
    static let defaultAlias = root + "/aliases/default"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let sessionInterface = "org.freedesktop.Secret.Session"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    let store: SecretItemStore
    /// The open sessions by path: a plain one has no key.
    private var sessions: [String: EncryptedSession?] = [:]
    private var nextSession = 1
    private let created = UInt64(Date().timeIntervalSince1970)

    /// Emits a signal of the collection (`ItemCreated`, `ItemDeleted`, `ItemChanged`) with the item's path; set by the
    /// connection that serves this.
    var emit: ((_ member: String, _ item: String) -> Void)?

    init(store: SecretItemStore) {
        self.store = store
    }

    /// Answers one call: `reply` is the method return to fill.
    func handle(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        let path = call.path
        if call.interface == Self.propertiesInterface { return try properties(call, reply: reply) }
        switch path {
        case Self.root: try service(call, reply: reply)
        case Self.collection, Self.defaultAlias: try collection(call, reply: reply)
        default:
            if let session = sessions[path], call.member == "Close" {
                var closing = session
                closing?.close()
                sessions[path] = nil
                return
            }
            if let reference = Self.reference(of: path) { return try item(reference, call, reply: reply) }
            throw .noSuchObject(path)
        }
    }

    // MARK: Service

    private func service(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        switch call.member {
        case "OpenSession":
            let algorithm = try call.readString()
            let path = "\(Self.root)/session/\(nextSession)"
            switch algorithm {
            case "plain":
                sessions[path] = .some(nil)
                try reply.container("v", "s") { () throws(BusFailure) in try reply.append("") }
            case "dh-ietf1024-sha256-aes128-cbc-pkcs7":
                var clientPublic = Data()
                let entered = try call.enter("v", "ay") { () throws(BusFailure) in clientPublic = try call.readBytes() }
                guard entered else {
                    throw BusFailure(
                        name: "org.freedesktop.DBus.Error.InvalidArgs",
                        message: "the session input must be a byte array")
                }
                let (session, servicePublic) = try EncryptedSession.open(clientPublic: clientPublic)
                sessions[path] = .some(session)
                try reply.container("v", "ay") { () throws(BusFailure) in try reply.append(bytes: servicePublic) }
            default:
                throw .notSupported(
                    "the session algorithm \(algorithm) is not supported (plain, dh-ietf1024-sha256-aes128-cbc-pkcs7)")
            }
            nextSession += 1
            try reply.append(path, as: "o")
        case "SearchItems":
            let query = try call.readStringDictionary()
            let paths = try engine { () throws(EngineError) in try store.search(query) }.map {
                Self.path(of: $0.reference)
            }
            try reply.append(paths: paths)
            try reply.append(paths: [])
        case "GetSecrets":
            let items = try call.readPaths()
            let session = try call.readString("o")
            try checkSession(session)
            try reply.container("a", "{o(oayays)}") { () throws(BusFailure) in
                for path in items {
                    guard let reference = Self.reference(of: path) else { continue }
                    guard let secret = try? store.secret(of: reference) else { continue }
                    try reply.container("e", "o(oayays)") { () throws(BusFailure) in
                        try reply.append(path, as: "o")
                        try append(secret: secret.value, contentType: secret.contentType, session: session, to: reply)
                    }
                }
            }
        case "ReadAlias":
            let name = try call.readString()
            try reply.append(name == "default" || name == "login" ? Self.collection : "/", as: "o")
        case "Unlock":
            let objects = try call.readPaths()
            try reply.append(paths: objects)
            try reply.append("/", as: "o")
        case "Lock":
            _ = try call.readPaths()
            try reply.append(paths: [])
            try reply.append("/", as: "o")
        default: throw .unknownMethod(call)
        }
    }

    // MARK: Collection

    private func collection(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        switch call.member {
        case "SearchItems":
            let query = try call.readStringDictionary()
            let paths = try engine { () throws(EngineError) in try store.search(query) }.map {
                Self.path(of: $0.reference)
            }
            try reply.append(paths: paths)
        case "CreateItem":
            var label = ""
            var attributes: [String: String] = [:]
            try call.readArray(of: "{sv}") { () throws(BusFailure) in
                _ = try call.enter("e", "sv") { () throws(BusFailure) in
                    let name = try call.readString()
                    switch name {
                    case "org.freedesktop.Secret.Item.Label":
                        _ = try call.enter("v", "s") { () throws(BusFailure) in label = try call.readString() }
                    case "org.freedesktop.Secret.Item.Attributes":
                        _ = try call.enter("v", "a{ss}") { () throws(BusFailure) in
                            attributes = try call.readStringDictionary()
                        }
                    default: try call.skip("v")
                    }
                }
            }
            let (secret, contentType) = try readSecret(call)
            let replace = try call.readBool()
            let stored = try engine { () throws(EngineError) in
                try store.create(
                    label: label, attributes: attributes, secret: secret, contentType: contentType, replace: replace)
            }
            let path = Self.path(of: stored.reference)
            try reply.append(path, as: "o")
            try reply.append("/", as: "o")
            // The keychain dates a new item's creation and modification alike; a replaced one keeps its creation.
            emit?(stored.created == stored.modified ? "ItemCreated" : "ItemChanged", path)
        case "Delete": throw .notSupported("the login collection cannot be deleted")
        default: throw .unknownMethod(call)
        }
    }

    // MARK: Item

    private func item(_ reference: PersistentReference, _ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        switch call.member {
        case "GetSecret":
            let session = try call.readString("o")
            try checkSession(session)
            let secret = try engine { () throws(EngineError) in try store.secret(of: reference) }
            try append(secret: secret.value, contentType: secret.contentType, session: session, to: reply)
        case "SetSecret":
            let (secret, _) = try readSecret(call)
            try engine { () throws(EngineError) in try store.setSecret(secret, of: reference) }
            emit?("ItemChanged", call.path)
        case "Delete":
            try engine { () throws(EngineError) in try store.delete(reference) }
            emit?("ItemDeleted", call.path)
            try reply.append("/", as: "o")
        default: throw .unknownMethod(call)
        }
    }

    // MARK: Properties

    private func properties(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        let interface = try call.readString()
        let path = call.path
        switch call.member {
        case "Get":
            let name = try call.readString()
            let all = try propertyValues(of: path, interface: interface)
            guard let value = all.first(where: { $0.name == name }) else {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.UnknownProperty", message: "\(interface) has no property \(name)")
            }
            try reply.container("v", value.signature) { () throws(BusFailure) in try value.write(reply) }
        case "GetAll":
            let all = try propertyValues(of: path, interface: interface)
            try reply.container("a", "{sv}") { () throws(BusFailure) in
                for value in all {
                    try reply.container("e", "sv") { () throws(BusFailure) in
                        try reply.append(value.name)
                        try reply.container("v", value.signature) { () throws(BusFailure) in try value.write(reply) }
                    }
                }
            }
        case "Set":
            let name = try call.readString()
            guard name == "Label", let reference = Self.reference(of: path) else {
                throw BusFailure(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(name) is read-only")
            }
            var label = ""
            _ = try call.enter("v", "s") { () throws(BusFailure) in label = try call.readString() }
            try engine { () throws(EngineError) in try store.setLabel(label, of: reference) }
            emit?("ItemChanged", path)
        default: throw .unknownMethod(call)
        }
    }

    /// A property: its name, signature and how to write its value.
    private struct Property {
        var name: String
        var signature: String
        var write: (BusMessage) throws(BusFailure) -> Void
    }

    private func propertyValues(of path: String, interface: String) throws(BusFailure) -> [Property] {
        switch path {
        case Self.root:
            return [
                Property(name: "Collections", signature: "ao") { (m) throws(BusFailure) in
                    try m.append(paths: [Self.collection])
                }
            ]
        case Self.collection, Self.defaultAlias:
            let items = try engine { () throws(EngineError) in try store.all() }.map { Self.path(of: $0.reference) }
            let created = self.created
            return [
                Property(name: "Items", signature: "ao") { (m) throws(BusFailure) in try m.append(paths: items) },
                Property(name: "Label", signature: "s") { (m) throws(BusFailure) in try m.append("Login") },
                Property(name: "Locked", signature: "b") { (m) throws(BusFailure) in try m.append(false) },
                Property(name: "Created", signature: "t") { (m) throws(BusFailure) in try m.append(created) },
                Property(name: "Modified", signature: "t") { (m) throws(BusFailure) in try m.append(created) },
            ]
        default:
            guard let reference = Self.reference(of: path) else { throw .noSuchObject(path) }
            let stored = try engine { () throws(EngineError) in try store.item(reference) }
            return [
                Property(name: "Locked", signature: "b") { (m) throws(BusFailure) in try m.append(false) },
                Property(name: "Attributes", signature: "a{ss}") { (m) throws(BusFailure) in
                    try m.append(dictionary: stored.attributes)
                },
                Property(name: "Label", signature: "s") { (m) throws(BusFailure) in try m.append(stored.label) },
                Property(name: "Created", signature: "t") { (m) throws(BusFailure) in
                    try m.append(UInt64(stored.created.timeIntervalSince1970))
                },
                Property(name: "Modified", signature: "t") { (m) throws(BusFailure) in
                    try m.append(UInt64(stored.modified.timeIntervalSince1970))
                },
            ]
        }
    }

    // MARK: Helpers

    /// A secret as the API carries it, `(session, parameters, value, content type)`: in a plain session the value as
    /// it is, in an encrypted one sealed under the session's key with a fresh IV as its parameters.
    private func append(secret: Data, contentType: String, session: String, to reply: BusMessage) throws(BusFailure) {
        let key = try self.session(session)
        let sealed =
            try key.map { (key) throws(BusFailure) in try key.seal(secret) } ?? (parameters: Data(), value: secret)
        try reply.container("r", "oayays") { () throws(BusFailure) in
            try reply.append(session, as: "o")
            try reply.append(bytes: sealed.parameters)
            try reply.append(bytes: sealed.value)
            try reply.append(contentType)
        }
    }

    /// A secret as a client sends it, `(session, parameters, value, content type)`: the value opened with the
    /// session's key when the session is encrypted, and its content type.
    private func readSecret(_ call: BusMessage) throws(BusFailure) -> (value: Data, contentType: String) {
        var secret = (value: Data(), contentType: "text/plain")
        _ = try call.enter("r", "oayays") { () throws(BusFailure) in
            let session = try self.session(try call.readString("o"))
            let parameters = try call.readBytes()
            let value = try call.readBytes()
            secret.value =
                try session.map { (key) throws(BusFailure) in try key.open(value, parameters: parameters) } ?? value
            secret.contentType = try call.readString()
        }
        return secret
    }

    /// The key of an open session (`nil` for a plain one); an unknown session is Secret.Error.NoSession.
    private func session(_ path: String) throws(BusFailure) -> EncryptedSession? {
        guard let session = sessions[path] else {
            throw BusFailure(name: "org.freedesktop.Secret.Error.NoSession", message: "no such session: \(path)")
        }
        return session
    }

    private func checkSession(_ path: String) throws(BusFailure) {
        _ = try session(path)
    }

    /// An item's path: its persistent reference in hexadecimal under the collection.
    static func path(of reference: PersistentReference) -> String {
        collection + "/" + reference.data.map { String(format: "%02x", $0) }.joined()
    }

    /// The persistent reference an item's path names.
    static func reference(of path: String) -> PersistentReference? {
        for prefix in [collection + "/", defaultAlias + "/"] where path.hasPrefix(prefix) {
            let hex = Array(path.dropFirst(prefix.count))
            guard hex.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: hex.count, by: 2) {
                guard let byte = UInt8(String(hex[index..<index + 2]), radix: 16) else { return nil }
                bytes.append(byte)
            }
            return PersistentReference(data: Data(bytes))
        }
        return nil
    }

    /// Runs keychain work, turning its failure into a Secret Service error.
    private func engine<Result>(_ body: () throws(EngineError) -> Result) throws(BusFailure) -> Result {
        do {
            return try body()
        } catch {
            let name =
                error.code == .itemNotFound
                ? "org.freedesktop.Secret.Error.NoSuchObject"
                : error.code == .interactionNotAllowed
                    ? "org.freedesktop.Secret.Error.IsLocked" : "org.freedesktop.DBus.Error.Failed"
            throw BusFailure(name: name, message: error.message)
        }
    }
}
