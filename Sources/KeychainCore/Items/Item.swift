import Foundation

/// A stored keychain item as the engine returns it.
public struct Item: Sendable, Equatable, Codable {
    /// The item's class.
    public var itemClass: ItemClass
    /// All its attributes, including access group, protection class, synchronizable and dates.
    public var attributes: ItemAttributes
    /// Its secret, when the query asked for it.
    public var data: Data?
    /// The reference that identifies it across runs.
    public var persistentReference: PersistentReference

    /// Creates an item value.
    public init(
        itemClass: ItemClass, attributes: ItemAttributes, data: Data?, persistentReference: PersistentReference
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.persistentReference = persistentReference
    }
}

/// An item to add.
public struct NewItem: Sendable, Equatable, Codable {
    /// The item's class.
    public var itemClass: ItemClass
    /// Its attributes. Access group, protection class and synchronizable take their defaults when absent.
    public var attributes: ItemAttributes
    /// Its secret (empty when absent, as Apple allows).
    public var data: Data
    /// Whether the item may be synchronizable with a this-device-only protection class: iOS stores such an item and
    /// keeps it on the device (the `Security` API's rule). When `false` the pair is `errSecParam`.
    public var allowsThisDeviceOnlySynchronizable: Bool
    /// For an item with access control (``AttributeKey/accessControl``): its application password, and, when an
    /// item of that primary key exists already (``KeychainBackend/addOrUpdate(_:for:)``), the factors that open it.
    public var authentication: ItemAuthentication?

    /// Creates an item to add.
    public init(
        itemClass: ItemClass, attributes: ItemAttributes = [:], data: Data = Data(),
        allowsThisDeviceOnlySynchronizable: Bool = false, authentication: ItemAuthentication? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.allowsThisDeviceOnlySynchronizable = allowsThisDeviceOnlySynchronizable
        self.authentication = authentication
    }
}

/// The changes an update makes to every item it matches.
public struct ItemChanges: Sendable, Equatable, Codable {
    /// Attributes to set (primary-key attributes included: a move onto an existing key is a duplicate).
    public var attributes: ItemAttributes
    /// A new secret, or `nil` to keep each item's own.
    public var data: Data?
    /// Whether a changed item may be synchronizable with a this-device-only protection class (see
    /// ``NewItem/allowsThisDeviceOnlySynchronizable``).
    public var allowsThisDeviceOnlySynchronizable: Bool

    /// Creates a set of changes.
    public init(attributes: ItemAttributes = [:], data: Data? = nil, allowsThisDeviceOnlySynchronizable: Bool = false) {
        self.attributes = attributes
        self.data = data
        self.allowsThisDeviceOnlySynchronizable = allowsThisDeviceOnlySynchronizable
    }

    /// Whether the changes change nothing.
    public var isEmpty: Bool { attributes.isEmpty && data == nil }
}

/// A reference that identifies one item across runs and processes: its class and the item's stable UUID.
public struct PersistentReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The item's class.
    public let itemClass: ItemClass
    /// The item's UUID, fixed at creation.
    public let uuid: UUID

    /// Creates a reference.
    public init(itemClass: ItemClass, uuid: UUID) {
        self.itemClass = itemClass
        self.uuid = uuid
    }

    /// The reference's 20-byte form: the class's four ASCII characters, then the 16 UUID bytes.
    public var data: Data {
        var bytes = [UInt8](itemClass.rawValue.utf8)
        withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        // From a buffer: `Data(sequence)` asks the runtime whether the sequence is contiguous (a conformance
        // lookup that scans every conformance in the binary the first time), which a short command notices.
        return bytes.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    /// The 16 bytes of the UUID.
    var uuidBytes: Data {
        PersistentReference.bytes(of: uuid)
    }

    /// The 16 bytes of a UUID.
    static func bytes(of uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data(buffer: $0.bindMemory(to: UInt8.self)) }
    }

    /// Parses the 20-byte form, or returns `nil` when `data` is not a persistent reference.
    public init?(data: Data) {
        guard data.count == 20,
            let itemClass = ItemClass(rawValue: String(decoding: data.prefix(4), as: UTF8.self)),
            let uuid = data.suffix(16).withUnsafeBytes({ UUID(bytes: $0) })
        else { return nil }
        self.init(itemClass: itemClass, uuid: uuid)
    }

    /// `genp/UUID`.
    public var description: String { "\(itemClass.rawValue)/\(uuid.uuidString)" }
}
