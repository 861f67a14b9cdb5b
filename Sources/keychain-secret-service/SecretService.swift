import CSDBus
import Foundation
import KeychainCore
import KeychainPrompts

/// The Secret Service's objects under `/org/freedesktop/secrets` (the freedesktop Secret Service API, version 0.2):
/// the service, the collections (access groups of the keychain; `aliases/default` is `login` unless set), their
/// items, the sessions and the prompts. Calls arrive one at a time from the bus loop; each is answered here (the
/// service's, collections', items', properties' and prompts' calls are in the files named after them), or with the
/// D-Bus error it raised.
final class SecretService {
    static let root = "/org/freedesktop/secrets"
    static let collectionRoot = root + "/collection/"
    static let aliasRoot = root + "/aliases/"
    /// The collection `login`: the service's own group, the default alias unless set otherwise.
    static let collection = collectionRoot + SecretItemStore.loginCollection
    static let defaultAlias = aliasRoot + "default"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let sessionInterface = "org.freedesktop.Secret.Session"
    static let promptInterface = "org.freedesktop.Secret.Prompt"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// The store of the collection `login`; the others are derived from it.
    let store: SecretItemStore
    /// Asks for the keychain's passcode when a prompt is run (terminal, else pinentry).
    let prompter: any SecretPrompter
    /// The open sessions by path: a plain one has no key.
    var sessions: [String: EncryptedSession?] = [:]
    /// The unique bus name that opened each session. A session serves only its opener: every program of the user
    /// may watch the bus (BecomeMonitor), so another that saw a session's path, IV and ciphertext go by could
    /// otherwise hand them back as the secret of an item of its own and have the service decrypt them.
    var sessionOwners: [String: String] = [:]
    var nextSession = 1
    /// The most sessions one connection holds open at once.
    static let sessionsPerConnection = 64
    /// The prompts not yet completed, by path.
    var prompts: [String: PendingPrompt] = [:]
    /// The unique bus name whose call made each prompt: only it may run or dismiss it.
    var promptOwners: [String: String] = [:]
    /// Prompts whose asking ended on its own thread, to complete from the bus loop: path, whether the keychain
    /// unlocked, the objects unlocked.
    let finishedPrompts = FinishedPrompts()
    var nextPrompt = 1

    /// Told of each item signal sent for a write made here (set by the connection: the change feed then does not
    /// signal that write again).
    var emit: ((_ member: String, _ item: String) -> Void)?
    /// The bus the calls arrive on (taken from the first call, or given by the connection): signals go out on it.
    var bus: OpaquePointer?

    init(store: SecretItemStore, prompter: any SecretPrompter = SystemPrompter()) {
        self.store = store
        self.prompter = prompter
    }

    /// An object a path names.
    enum Object {
        case service
        case collection(String)
        case item(collection: String, PersistentReference)
        case session(String)
        case prompt(String)
    }

    /// Answers one call: `reply` is the method return to fill.
    func handle(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        if bus == nil { bus = sd_bus_message_get_bus(call.handle) }
        if call.interface == Self.propertiesInterface { return try properties(call, reply: reply) }
        switch try object(at: call.path) {
        case .service: try service(call, reply: reply)
        case .collection(let name): try collection(name, call, reply: reply)
        case .item(let name, let reference): try item(reference, in: name, call, reply: reply)
        case .session(let path):
            guard call.member == "Close" else { throw .unknownMethod(call) }
            var closing = try session(path)
            closing?.close()
            sessions[path] = nil
            sessionOwners[path] = nil
        case .prompt(let path): try prompt(path, call, reply: reply)
        }
    }

    /// Forgets what a connection that left the bus held: its sessions, its prompts (not completed: no one is
    /// there to hear), its identity.
    func connectionLeft(_ name: String) {
        for (path, owner) in sessionOwners where owner == name {
            var closing = sessions[path] ?? nil
            closing?.close()
            sessions[path] = nil
            sessionOwners[path] = nil
        }
        for (path, owner) in promptOwners where owner == name {
            prompts[path] = nil
            promptOwners[path] = nil
        }
        store.identities.forget(name)
    }

    /// The object at `path`: the service, a collection (by name or alias), an item, an open session or a pending
    /// prompt; anything else is NoSuchObject.
    func object(at path: String) throws(BusFailure) -> Object {
        if path == Self.root { return .service }
        if sessions[path] != nil { return .session(path) }
        if prompts[path] != nil { return .prompt(path) }
        let elements: [Substring]
        let name: String
        if path.hasPrefix(Self.collectionRoot) {
            elements = path.dropFirst(Self.collectionRoot.count).split(separator: "/", omittingEmptySubsequences: false)
            name = String(elements[0])
            guard try collectionExists(name) else { throw .noSuchObject(path) }
        } else if path.hasPrefix(Self.aliasRoot) {
            elements = path.dropFirst(Self.aliasRoot.count).split(separator: "/", omittingEmptySubsequences: false)
            let aliases = try engine { () throws(EngineError) in try store.aliases() }
            guard let target = aliases[String(elements[0])] else { throw .noSuchObject(path) }
            name = target
        } else {
            throw .noSuchObject(path)
        }
        switch elements.count {
        case 1: return .collection(name)
        case 2:
            guard let reference = Self.reference(hex: elements[1]) else { throw .noSuchObject(path) }
            return .item(collection: name, reference)
        default: throw .noSuchObject(path)
        }
    }

    func collectionExists(_ name: String) throws(BusFailure) -> Bool {
        guard name != SecretItemStore.loginCollection else { return true }
        guard SecretItemStore.isCollectionName(name) else { return false }
        return try engine { () throws(EngineError) in try store.collections() }.contains { $0.name == name }
    }

    // MARK: Locking

    /// Whether the keychain is locked: every collection and item is, then.
    var isLocked: Bool {
        (try? store.backend.keybagStatus().isLocked) ?? false
    }

    /// Refuses to read or write a secret while the keychain is locked: Secret.Error.IsLocked.
    func ensureUnlocked() throws(BusFailure) {
        guard !isLocked else {
            throw BusFailure(
                name: "org.freedesktop.Secret.Error.IsLocked",
                message: "the keychain is locked: Unlock it first (its prompt asks for the passcode)")
        }
    }

    // MARK: Signals

    /// Sends a signal from `path`; `body` appends its arguments.
    func signal(
        _ path: String, _ interface: String, _ member: String, _ body: (BusMessage) throws(BusFailure) -> Void
    ) {
        guard let bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &message, path, interface, member) >= 0, let message else { return }
        defer { sd_bus_message_unref(message) }
        do throws(BusFailure) {
            try body(BusMessage(handle: message))
        } catch {
            return
        }
        _ = sd_bus_send(bus, message, nil)
    }

    /// A collection's signal about one of its items (`ItemCreated`, `ItemChanged`, `ItemDeleted`).
    func itemSignal(_ member: String, item path: String, in collection: String) {
        signal(Self.path(ofCollection: collection), Self.collectionInterface, member) { (m) throws(BusFailure) in
            try m.append(path, as: "o")
        }
        emit?(member, path)
    }

    /// The service's signal about a collection (`CollectionCreated`, `CollectionChanged`, `CollectionDeleted`).
    func collectionSignal(_ member: String, collection name: String) {
        signal(Self.root, Self.serviceInterface, member) { (m) throws(BusFailure) in
            try m.append(Self.path(ofCollection: name), as: "o")
        }
    }

    // MARK: Paths

    static func path(ofCollection name: String) -> String { collectionRoot + name }

    /// An item's path: its persistent reference in hexadecimal under its collection.
    static func path(of reference: PersistentReference, in collection: String = SecretItemStore.loginCollection)
        -> String
    {
        path(ofCollection: collection) + "/" + reference.data.hexText()
    }

    /// The persistent reference a path's last element names in hexadecimal.
    static func reference(hex: Substring) -> PersistentReference? {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = UInt8(hexDigit: digits[index]), let low = UInt8(hexDigit: digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return PersistentReference(data: Data(bytes))
    }

    /// Runs keychain work, turning its failure into a Secret Service error.
    func engine<Result>(_ body: () throws(EngineError) -> Result) throws(BusFailure) -> Result {
        do {
            return try body()
        } catch {
            throw Self.failure(error)
        }
    }

    /// A keychain failure as a Secret Service error: NoSuchObject, IsLocked, AccessDenied (keychaind's wall), or
    /// Failed, with the keychain's words.
    static func failure(_ error: EngineError) -> BusFailure {
        let name =
            switch error.code {
            case .itemNotFound: "org.freedesktop.Secret.Error.NoSuchObject"
            case .interactionNotAllowed: "org.freedesktop.Secret.Error.IsLocked"
            case .missingEntitlement: "org.freedesktop.DBus.Error.AccessDenied"
            default: "org.freedesktop.DBus.Error.Failed"
            }
        return BusFailure(name: name, message: error.message)
    }
}
