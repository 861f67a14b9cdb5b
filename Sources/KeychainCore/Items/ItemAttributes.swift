/// A set of attribute values, keyed by attribute.
///
/// Stored in one fixed slot per attribute, so reading, writing and iterating in name order cost no hashing; an
/// empty set allocates nothing.
public struct ItemAttributes: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// Empty until the first attribute is set, then one slot per attribute.
    private var slots: [AttributeValue?] = []
    /// The number of attributes set.
    public private(set) var count = 0

    /// Creates a set from a dictionary.
    public init(_ values: [AttributeKey: AttributeValue] = [:]) {
        for (key, value) in values { self[key] = value }
    }

    /// Creates a set from a literal.
    public init(dictionaryLiteral elements: (AttributeKey, AttributeValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    /// The value of an attribute, or `nil` when it is absent.
    public subscript(key: AttributeKey) -> AttributeValue? {
        get { slots.isEmpty ? nil : slots[key.slot] }
        set {
            if slots.isEmpty {
                guard newValue != nil else { return }
                slots = Array(repeating: nil, count: AttributeKey.allCases.count)
            }
            count += (newValue == nil ? 0 : 1) - (slots[key.slot] == nil ? 0 : 1)
            slots[key.slot] = newValue
        }
    }

    /// Two sets are equal when they hold the same values.
    public static func == (lhs: ItemAttributes, rhs: ItemAttributes) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the values in name order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for (key, value) in self {
            hasher.combine(key)
            hasher.combine(value)
        }
    }

    /// The values as a dictionary.
    public var values: [AttributeKey: AttributeValue] {
        Dictionary(uniqueKeysWithValues: Array(self))
    }

    /// Whether no attribute is set.
    public var isEmpty: Bool { count == 0 }

    /// The attribute keys, sorted by name.
    public var keys: [AttributeKey] { AttributeKey.byName.filter { self[$0] != nil } }

    /// Iterates the attributes in name order.
    public func makeIterator() -> Iterator {
        Iterator(slots: slots)
    }

    /// Iterates the attributes that are set, in name order.
    public struct Iterator: IteratorProtocol {
        fileprivate let slots: [AttributeValue?]
        private var position = 0

        fileprivate init(slots: [AttributeValue?]) {
            self.slots = slots
        }

        /// The next attribute, or `nil` after the last.
        public mutating func next() -> (key: AttributeKey, value: AttributeValue)? {
            // Slots are in name order, so walking them is iterating by name.
            while position < slots.count {
                defer { position += 1 }
                if let value = slots[position] { return (AttributeKey.byName[position], value) }
            }
            return nil
        }
    }

    /// The text of an attribute.
    public func string(_ key: AttributeKey) -> String? { self[key]?.stringValue }

    /// The flag of an attribute.
    public func bool(_ key: AttributeKey) -> Bool? { self[key]?.boolValue }

    /// This set with `other`'s values written over it.
    public func merging(_ other: ItemAttributes) -> ItemAttributes {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }
}

extension ItemAttributes: Codable {
    /// Decodes a dictionary keyed by four-character names.
    public init(from decoder: any Decoder) throws {
        self.init(try [AttributeKey: AttributeValue](from: decoder))
    }

    /// Encodes a dictionary keyed by four-character names.
    public func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}
