import Foundation
import KeychainCore

/// The objects' properties (`org.freedesktop.DBus.Properties`: `Get`, `GetAll`, `Set`) and their
/// `PropertiesChanged` signal.
extension SecretService {
    func properties(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        let interface = try call.readString()
        let path = call.path
        switch call.member {
        case "Get":
            let name = try call.readString()
            let all = try propertyValues(of: path)
            guard let value = all.first(where: { $0.name == name }) else {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.UnknownProperty", message: "\(interface) has no property \(name)")
            }
            try reply.container("v", value.signature) { () throws(BusFailure) in try value.write(reply) }
        case "GetAll":
            try append(try propertyValues(of: path), to: reply)
        case "Set":
            try set(try call.readString(), of: path, call)
        default: throw .unknownMethod(call)
        }
    }

    /// `Set`: a collection's `Label`, an item's `Label` and `Attributes`; every other property is read-only.
    private func set(_ name: String, of path: String, _ call: BusMessage) throws(BusFailure) {
        switch (try object(at: path), name) {
        case (.collection(let collection), "Label"):
            var label = ""
            _ = try call.enter("v", "s") { () throws(BusFailure) in label = try call.readString() }
            try engine { () throws(EngineError) in try store.setCollectionLabel(label, of: collection) }
            collectionSignal("CollectionChanged", collection: collection)
            propertiesChanged(Self.path(ofCollection: collection), ["Label"])
        case (.item(let collection, let reference), "Label"):
            var label = ""
            _ = try call.enter("v", "s") { () throws(BusFailure) in label = try call.readString() }
            try ensureUnlocked()
            try engine { () throws(EngineError) in try store.collection(collection).setLabel(label, of: reference) }
            itemChanged(Self.path(of: reference, in: collection), in: collection, ["Label", "Modified"])
        case (.item(let collection, let reference), "Attributes"):
            var attributes: [String: String] = [:]
            let entered = try call.enter("v", "a{ss}") { () throws(BusFailure) in
                attributes = try call.readStringDictionary()
            }
            guard entered else {
                throw BusFailure(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Attributes is an a{ss}")
            }
            try ensureUnlocked()
            try engine { () throws(EngineError) in
                try store.collection(collection).setAttributes(attributes, of: reference)
            }
            itemChanged(Self.path(of: reference, in: collection), in: collection, ["Attributes", "Modified"])
        default:
            throw BusFailure(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(name) is read-only")
        }
    }

    private func itemChanged(_ path: String, in collection: String, _ names: [String]) {
        itemSignal("ItemChanged", item: path, in: collection)
        propertiesChanged(path, names)
    }

    /// `PropertiesChanged(interface, changed, invalidated)` with the new values of `names`.
    func propertiesChanged(_ path: String, _ names: [String]) {
        guard let all = try? propertyValues(of: path) else { return }
        let interface = path.split(separator: "/").count == 5 ? Self.collectionInterface : Self.itemInterface
        signal(path, Self.propertiesInterface, "PropertiesChanged") { (m) throws(BusFailure) in
            try m.append(interface)
            try append(all.filter { names.contains($0.name) }, to: m)
            try m.container("a", "s") {}
        }
    }

    /// A property: its name, signature and how to write its value.
    struct Property {
        var name: String
        var signature: String
        var write: (BusMessage) throws(BusFailure) -> Void
    }

    private func append(_ properties: [Property], to message: BusMessage) throws(BusFailure) {
        try message.container("a", "{sv}") { () throws(BusFailure) in
            for value in properties {
                try message.container("e", "sv") { () throws(BusFailure) in
                    try message.append(value.name)
                    try message.container("v", value.signature) { () throws(BusFailure) in try value.write(message) }
                }
            }
        }
    }

    private func propertyValues(of path: String) throws(BusFailure) -> [Property] {
        let locked = isLocked
        switch try object(at: path) {
        case .service:
            let paths = try engine { () throws(EngineError) in try store.collections() }.map {
                Self.path(ofCollection: $0.name)
            }
            return [
                Property(name: "Collections", signature: "ao") { (m) throws(BusFailure) in try m.append(paths: paths) }
            ]
        case .collection(let name):
            let collection = try engine { () throws(EngineError) in try store.collections() }.first { $0.name == name }
            let label = collection?.label ?? name
            let created = UInt64((collection?.created ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970)
            return [
                // Listed only when asked for: it opens every item's attributes, and clients ask `Locked` on every call.
                Property(name: "Items", signature: "ao") { (m) throws(BusFailure) in
                    try m.append(paths: try self.search([:], in: name))
                },
                Property(name: "Label", signature: "s") { (m) throws(BusFailure) in try m.append(label) },
                Property(name: "Locked", signature: "b") { (m) throws(BusFailure) in try m.append(locked) },
                Property(name: "Created", signature: "t") { (m) throws(BusFailure) in try m.append(created) },
                Property(name: "Modified", signature: "t") { (m) throws(BusFailure) in try m.append(created) },
            ]
        case .item(let name, let reference):
            let stored = try engine { () throws(EngineError) in try store.collection(name).item(reference) }
            return [
                Property(name: "Locked", signature: "b") { (m) throws(BusFailure) in try m.append(locked) },
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
        case .session, .prompt: return []
        }
    }
}
