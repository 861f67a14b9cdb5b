/// A set of attribute values, keyed by attribute.
public struct ItemAttributes: Sendable, Hashable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    /// The values.
    public private(set) var values: [AttributeKey: AttributeValue]

    /// Creates a set from a dictionary.
    public init(_ values: [AttributeKey: AttributeValue] = [:]) {
        self.values = values
    }

    /// Creates a set from a literal.
    public init(dictionaryLiteral elements: (AttributeKey, AttributeValue)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The value of an attribute, or `nil` when it is absent.
    public subscript(key: AttributeKey) -> AttributeValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// Whether no attribute is set.
    public var isEmpty: Bool { values.isEmpty }

    /// The number of attributes set.
    public var count: Int { values.count }

    /// The attribute keys, sorted by name.
    public var keys: [AttributeKey] { values.keys.sorted() }

    /// Iterates the attributes in key order.
    public func makeIterator() -> IndexingIterator<[(key: AttributeKey, value: AttributeValue)]> {
        values.sorted { $0.key < $1.key }.makeIterator()
    }

    /// The text of an attribute.
    public func string(_ key: AttributeKey) -> String? { values[key]?.stringValue }

    /// The flag of an attribute.
    public func bool(_ key: AttributeKey) -> Bool? { values[key]?.boolValue }

    /// This set with `other`'s values written over it.
    public func merging(_ other: ItemAttributes) -> ItemAttributes {
        ItemAttributes(values.merging(other.values) { _, new in new })
    }
}
