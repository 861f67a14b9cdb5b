import Foundation
import KeychainCore

/// A collection's methods (`org.freedesktop.Secret.Collection`) and an item's (`org.freedesktop.Secret.Item`).
extension SecretService {
    func collection(_ name: String, _ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        switch call.member {
        case "SearchItems":
            try reply.append(paths: try search(try call.readStringDictionary(), in: name))
        case "CreateItem": try createItem(in: name, call, reply: reply)
        case "Delete":
            try engine { () throws(EngineError) in try store.deleteCollection(name) }
            try reply.append("/", as: "o")
            collectionSignal("CollectionDeleted", collection: name)
        default: throw .unknownMethod(call)
        }
    }

    /// `CreateItem(properties, secret, replace)`: the whole call is read and checked (the secret decrypted) before
    /// anything is written, so a malformed one stores nothing.
    private func createItem(in name: String, _ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        var label = ""
        var attributes: [String: String] = [:]
        try call.readArray(of: "{sv}") { () throws(BusFailure) in
            _ = try call.enter("e", "sv") { () throws(BusFailure) in
                switch try call.readString() {
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
        try ensureUnlocked()
        let (stored, isNew) = try engine { () throws(EngineError) in
            try store.collection(name).createItem(
                label: label, attributes: attributes, secret: secret, contentType: contentType, replace: replace)
        }
        let path = Self.path(of: stored.reference, in: name)
        try reply.append(path, as: "o")
        try reply.append("/", as: "o")
        itemSignal(isNew ? "ItemCreated" : "ItemChanged", item: path, in: name)
        if !isNew { propertiesChanged(path, ["Label", "Attributes", "Modified"]) }
    }

    func item(_ reference: PersistentReference, in name: String, _ call: BusMessage, reply: BusMessage)
        throws(BusFailure)
    {
        let store = store.collection(name)
        let path = Self.path(of: reference, in: name)
        switch call.member {
        case "GetSecret":
            let session = try call.readString("o")
            _ = try self.session(session)
            try ensureUnlocked()
            let secret = try engine { () throws(EngineError) in try store.secret(of: reference) }
            try append(secret: secret.value, contentType: secret.contentType, session: session, to: reply)
        case "SetSecret":
            let (secret, _) = try readSecret(call)
            try ensureUnlocked()
            try engine { () throws(EngineError) in try store.setSecret(secret, of: reference) }
            itemSignal("ItemChanged", item: path, in: name)
            propertiesChanged(path, ["Modified"])
        case "Delete":
            try engine { () throws(EngineError) in try store.delete(reference) }
            itemSignal("ItemDeleted", item: path, in: name)
            try reply.append("/", as: "o")
        default: throw .unknownMethod(call)
        }
    }
}
