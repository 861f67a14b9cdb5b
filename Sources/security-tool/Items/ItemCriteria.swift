import Foundation
import Keychain

/// What `find-` and `delete-…-password` match for a class of item (see ``SearchCriteria``).
typealias ItemCriteria<Item: PasswordItem> = SearchCriteria<Item, Item.Query>

/// What `find-` and `delete-…-password` match: a `Keychain` query holding every criterion given, the shared ones
/// (`-D` kind, `-j` comment, `-c` creator, `-C` type) included, so the keychain (or keychaind) returns only what
/// matches: `-w` never makes it decrypt the secrets of items a check here would have dropped.
///
/// Generic over the query too, without requirements (``ItemCriteria`` names it for a class), so that making its
/// metadata at run time checks no conformance: that check scans every conformance in the binary the first time,
/// which a short command such as `find-generic-password` notices.
struct SearchCriteria<Item, Query> {
    /// The query listing the matches.
    let query: Query
    /// Whether any criterion was given (`delete-…-password` refuses to delete "the first item of all").
    let isEmpty: Bool
}

extension SearchCriteria where Item: PasswordItem, Query == Item.Query {
    /// Criteria from the class's query, which ``SharedTerms`` were written into, and whether the class's own
    /// options gave any criterion.
    init(query: Item.Query, hasClassCriteria: Bool, arguments: ParsedArguments) {
        self.query = query
        isEmpty =
            !hasClassCriteria && !"DjcCl".contains { arguments.has($0) }
            && arguments.value(long: ItemOptions.accessGroup) == nil
    }
}

/// The criteria every class shares: `-D` kind, `-j` comment, `-c` creator, `-C` type.
struct SharedTerms {
    var kind: String?
    var comment: String?
    var creator: UInt32?
    var type: UInt32?

    init(_ arguments: ParsedArguments) throws(ToolFailure) {
        kind = arguments.value("D")
        comment = arguments.value("j")
        creator = try ItemOptions.fourCharacterCode(arguments, "c")
        type = try ItemOptions.fourCharacterCode(arguments, "C")
    }
}
