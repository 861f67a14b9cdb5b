/// Which items a query matches and what it returns.
///
/// Attributes match by equality (text optionally ignoring case). Without a class, a query must name a persistent
/// reference. A plain query never sees synchronizable items; ``SynchronizableFilter/any`` sees both kinds.
public struct ItemQuery: Sendable, Equatable, Codable {
    /// The class to search, or `nil` when ``persistentReference`` names the item.
    public var itemClass: ItemClass?
    /// Attribute values an item must have (the synchronizable flag is ``synchronizable``, not an attribute here).
    public var attributes: ItemAttributes
    /// Whether synchronizable items, local items or both match.
    public var synchronizable: SynchronizableFilter
    /// The one item to match.
    public var persistentReference: PersistentReference?
    /// How many items to return; `nil` is the operation's default (one for a copy, all for update and delete,
    /// which accept no other).
    public var limit: MatchLimit?
    /// What each result carries besides its class and reference (attributes come back whenever asked).
    public var returning: ReturnOptions
    /// Whether text attributes match ignoring case.
    public var caseInsensitive: Bool
    /// The factors that open items with access control, and whether the engine may ask for more
    /// (``ItemAuthentication``); `nil` asks as ``ItemAuthentication/Interaction/allowed`` does.
    public var authentication: ItemAuthentication?
    /// A copy's page cursor: only the items stored after this one, in the order the keychain stores them (the
    /// order a copy returns), match. A listing in pages gives the last item of the page before; when that item is
    /// no longer stored the copy fails with ``EngineError/Code/param`` naming it (the listing must start again),
    /// never with an empty page that would look like the end.
    public var startingAfter: PersistentReference?

    /// Creates a query.
    public init(
        itemClass: ItemClass?, attributes: ItemAttributes = [:], synchronizable: SynchronizableFilter = .localOnly,
        persistentReference: PersistentReference? = nil, limit: MatchLimit? = nil, returning: ReturnOptions = [],
        caseInsensitive: Bool = false, authentication: ItemAuthentication? = nil,
        startingAfter: PersistentReference? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.synchronizable = synchronizable
        self.persistentReference = persistentReference
        self.limit = limit
        self.returning = returning
        self.caseInsensitive = caseInsensitive
        self.authentication = authentication
        self.startingAfter = startingAfter
    }
}

/// Which items match by their synchronizable flag.
public enum SynchronizableFilter: Sendable, Equatable, Codable {
    /// Only items that stay on this device (the default, as on Apple's platforms).
    case localOnly
    /// Only synchronizable items.
    case synchronizableOnly
    /// Both.
    case any

    /// The filter that matches exactly the given flag.
    public init(_ synchronizable: Bool) {
        self = synchronizable ? .synchronizableOnly : .localOnly
    }

    /// Whether an item with this flag matches.
    public func matches(_ synchronizable: Bool) -> Bool {
        switch self {
        case .localOnly: !synchronizable
        case .synchronizableOnly: synchronizable
        case .any: true
        }
    }
}

/// How many items a copy returns.
public enum MatchLimit: Sendable, Equatable, Codable {
    /// The first match, returned alone.
    case one
    /// Every match.
    case all
    /// At most this many matches (at least one).
    case upTo(Int)

    /// The maximum number of results.
    public var maximum: Int {
        switch self {
        case .one: 1
        case .all: Int.max
        case .upTo(let count): count
        }
    }
}

/// What a result carries.
public struct ReturnOptions: OptionSet, Sendable, Codable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The secret.
    public static let data = ReturnOptions(rawValue: 1 << 0)
    /// The attributes.
    public static let attributes = ReturnOptions(rawValue: 1 << 1)
    /// The persistent reference.
    public static let persistentReference = ReturnOptions(rawValue: 1 << 2)
}
