import Foundation

/// The value of ``AttributeKey/searchTerms``: a set of UTF-8 terms, each written as a 4-byte little-endian length
/// and its bytes. Each term gets a blind index of its own (a row of `item_terms`), so a query that names some terms
/// finds the items holding all of them through SQL; an item matches when it holds every term the query names.
public enum SearchTerms {
    /// The most terms one item may hold: a Secret Service item's attribute map is a few pairs; a bound keeps one
    /// write from filling the index.
    public static let countLimit = 64
    /// The longest a term may be, in bytes.
    public static let byteLimit = 4096

    /// The attribute value holding `terms` (sorted, each once).
    public static func value(_ terms: some Sequence<String>) -> AttributeValue {
        var bytes: [UInt8] = []
        for term in Set(terms).sorted() { bytes.appendLengthPrefixedUTF8(term) }
        return .data(Data(bytes))
    }

    /// The terms a value holds; a malformed value, too many terms or a term too long is `errSecParam` naming the
    /// attribute.
    public static func terms(in value: AttributeValue) throws(EngineError) -> [String] {
        guard case .data(let data) = value else {
            throw EngineError(.param, "the search terms (sktm) must be data")
        }
        let bytes = [UInt8](data)
        var reader = ByteReader(bytes, range: 0..<bytes.count)
        var terms: [String] = []
        while !reader.isAtEnd {
            guard let term = try? reader.lengthPrefixed(), let text = String(validating: term, as: UTF8.self) else {
                throw EngineError(.param, "the search terms (sktm) are malformed: each is a length and UTF-8 text")
            }
            guard term.count <= byteLimit else {
                throw EngineError(.param, "a search term (sktm) of \(term.count) bytes exceeds \(byteLimit)")
            }
            terms.append(text)
            guard terms.count <= countLimit else {
                throw EngineError(.param, "an item holds more than \(countLimit) search terms (sktm)")
            }
        }
        return terms
    }
}
