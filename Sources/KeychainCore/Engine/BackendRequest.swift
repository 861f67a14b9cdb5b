import Foundation

/// One request to a keychain: the whole of the ``KeychainBackend`` seam as a value. A backend carries it out with
/// ``KeychainBackend/perform(_:for:)``; keychaind's client sends it as it is, and the daemon carries it out on the
/// engine the same way, so a new requirement is a new case here and a new engine function, nothing else.
///
/// Each case's contract is the one of its typed form in ``KeychainBackend``'s extension (``KeychainBackend/add(_:for:)-(NewItem,_)``
/// for ``add(_:)``, and so on), which is what the APIs call.
public enum BackendRequest: Sendable {
    /// Adds an item; replies ``BackendReply/written(_:)`` with it as stored.
    case add(NewItem)
    /// Adds every item, all or nothing; replies ``BackendReply/written(_:)`` with them as stored, in order.
    case addBatch([NewItem])
    /// Adds an item or writes it over the one with its primary key; replies ``BackendReply/written(_:)``.
    case addOrUpdate(NewItem)
    /// The items a query matches; replies ``BackendReply/items(_:)``.
    case copyMatching(ItemQuery)
    /// Changes every item a query matches; replies ``BackendReply/written(_:)`` with their new attributes.
    case update(ItemQuery, ItemChanges)
    /// Deletes every item a query matches; replies ``BackendReply/written(_:)`` with their last attributes.
    case delete(ItemQuery)
    /// The keybag's state; replies ``BackendReply/keybagStatus(_:)``.
    case keybagStatus
    /// Loads every class key after checking the passcode.
    case unlock(Passcode)
    /// Checks the passcode and changes no lock state.
    case checkPasscode(Passcode)
    /// Discards the keys of the classes that need the unlocked state.
    case lock
    /// Sets or changes the passcode (`current` is `nil` when none is set).
    case setPasscode(Passcode, current: Passcode?)
    /// Removes the passcode.
    case removePasscode(current: Passcode)
    /// Erases the keychain after that many consecutive wrong passcodes, vouched for by the current passcode.
    case setEraseAfter(Int, passcode: Passcode?)
    /// Whether files of a class can be opened now; replies ``BackendReply/bool(_:)``.
    case canOpenFiles(FileKeyClass)
    /// Wraps a file key for a class and context; replies ``BackendReply/data(_:)``.
    case wrapFileKey(SecretKey, FileKeyClass, context: [UInt8])
    /// Unwraps a file key; replies ``BackendReply/key(_:)``.
    case unwrapFileKey(Data, FileKeyClass, context: [UInt8])
    /// A file header's tag; replies ``BackendReply/data(_:)``.
    case fileHeaderTag([UInt8])
    /// Whether a tag is a file header's; replies ``BackendReply/bool(_:)``.
    case isValidFileHeaderTag(Data, [UInt8])
    /// Checks every row and the change log; replies ``BackendReply/report(_:)``.
    case verify
    /// The changes after a sequence, at most `limit`; replies ``BackendReply/changes(_:)``.
    case changes(since: Int64, limit: Int)
    /// The newest change's sequence; replies ``BackendReply/sequence(_:)``.
    case latestChangeSequence
    /// Several item writes (``isItemWrite``) in one transaction and one sync, each in a savepoint of its own: a
    /// refused one changes nothing and leaves the others alone. Replies ``BackendReply/writes(_:)``, one outcome per
    /// write, in order. For a writer with many independent writes at once (sync applying a pass's versions).
    case writeEach([BackendRequest])
    /// Several item writes in one transaction, all or nothing: the first refusal (named with its place) undoes the
    /// others. Replies ``BackendReply/written(_:)`` with every write's items, in order. For a writer whose writes
    /// stand together (a restore).
    case writeAll([BackendRequest])
    /// Uses the one private key item a query finds (its access control applies as to reading its secret) without
    /// returning it: a signature, a decryption, a key exchange or its public half. Replies ``BackendReply/data(_:)``.
    case useKey(ItemQuery, KeyUse)
    /// Makes a key pair and stores its halves, all or nothing; replies ``BackendReply/written(_:)`` (a
    /// non-extractable private key without its data).
    case generateKey(KeyGeneration)

    /// Whether the request acts on items for a caller (whose access groups decide what it reaches), rather than on
    /// the keychain as a whole (the keybag, file keys, verification), which ignores the caller.
    public var actsForCaller: Bool {
        switch self {
        case .add, .addBatch, .addOrUpdate, .copyMatching, .update, .delete, .changes, .writeEach, .useKey,
            .generateKey:
            true
        default: false
        }
    }

    /// The request's kind, as its case is named (`add`, `unlock` …): what an error may say about a request, which
    /// never shows its values (a passcode, a secret).
    public var name: String {
        switch self {
        case .add: "add"
        case .addBatch: "addBatch"
        case .addOrUpdate: "addOrUpdate"
        case .copyMatching: "copyMatching"
        case .update: "update"
        case .delete: "delete"
        case .keybagStatus: "keybagStatus"
        case .unlock: "unlock"
        case .checkPasscode: "checkPasscode"
        case .lock: "lock"
        case .setPasscode: "setPasscode"
        case .removePasscode: "removePasscode"
        case .setEraseAfter: "setEraseAfter"
        case .canOpenFiles: "canOpenFiles"
        case .wrapFileKey: "wrapFileKey"
        case .unwrapFileKey: "unwrapFileKey"
        case .fileHeaderTag: "fileHeaderTag"
        case .isValidFileHeaderTag: "isValidFileHeaderTag"
        case .verify: "verify"
        case .changes: "changes"
        case .latestChangeSequence: "latestChangeSequence"
        case .writeEach: "writeEach"
        case .writeAll: "writeAll"
        case .useKey: "useKey"
        case .generateKey: "generateKey"
        }
    }

    /// Whether carrying the request out may stretch a passcode or an application password with Argon2id (the
    /// keybag's cost: 192 MiB and a third of a second by default), so that keychaind takes one of the user's turns
    /// at that. Every case is named, so that a new request must be decided here.
    package var mayStretchPasscode: Bool {
        switch self {
        case .unlock, .checkPasscode, .setPasscode, .removePasscode: true
        case .setEraseAfter(_, let passcode): passcode != nil
        case .add(let item), .addOrUpdate(let item): item.authentication?.bringsSecret == true
        case .addBatch(let items): items.contains { $0.authentication?.bringsSecret == true }
        case .generateKey(let generation): generation.privateKey.authentication?.bringsSecret == true
        case .copyMatching(let query), .update(let query, _), .delete(let query), .useKey(let query, _):
            query.authentication?.bringsSecret == true
        case .writeEach(let writes), .writeAll(let writes): writes.contains { $0.mayStretchPasscode }
        case .keybagStatus, .lock, .canOpenFiles, .wrapFileKey, .unwrapFileKey, .fileHeaderTag, .isValidFileHeaderTag,
            .verify, .changes, .latestChangeSequence:
            false
        }
    }

    /// Whether the request writes items, so that it commits durably (keychaind commits such writes in groups).
    public var isItemWrite: Bool {
        switch self {
        case .add, .addBatch, .addOrUpdate, .update, .delete, .generateKey, .writeAll: true
        default: false
        }
    }
}

extension ItemAuthentication {
    /// Whether it carries a passcode or an application password, which the engine stretches before use.
    fileprivate var bringsSecret: Bool { passcode != nil || applicationPassword != nil }
}

/// What a backend answers a ``BackendRequest``: one kind of reply per kind of result.
public enum BackendReply: Sendable {
    /// What a write stored and the change sequence it took.
    case written(WriteResult)
    /// The items a query matched.
    case items([Item])
    /// The keybag's state.
    case keybagStatus(KeybagStatus)
    /// A request that returns nothing was carried out.
    case done
    /// A yes or no.
    case bool(Bool)
    /// Bytes: a wrapped file key, a header tag.
    case data(Data)
    /// An unwrapped file key.
    case key(SecretKey)
    /// A verification's findings.
    case report(VerificationReport)
    /// A page of the change feed.
    case changes(ChangeBatch)
    /// A change sequence.
    case sequence(Int64)
    /// The outcome of each write of a ``BackendRequest/writeEach(_:)``, in order.
    case writes([Result<WriteResult, EngineError>])
}

/// What a write did: the items it stored (or, for a delete, removed), and the change sequence it took, so that a
/// writer that follows the change feed (sync, above all) knows its own change without asking again.
public struct WriteResult: Sendable, Equatable {
    /// The items as stored, in order: an add's with their secrets as given, an update's with their new attributes
    /// (no secret), a delete's with their last attributes (no secret).
    public var items: [Item]
    /// The sequence of the last change the write recorded in the keychain's change feed.
    public var changeSequence: Int64

    /// A result with every field.
    public init(items: [Item], changeSequence: Int64) {
        self.items = items
        self.changeSequence = changeSequence
    }
}
