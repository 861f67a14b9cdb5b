import Foundation
import Keychain

/// What `find-` and `delete-…-password` match for a class of item (see ``SearchCriteria``).
typealias ItemCriteria<Item: PasswordItem> = SearchCriteria<Item, Item.Query>

/// What `find-` and `delete-…-password` match: a `Keychain` query for the attributes it can look up, and checks
/// for the others (kind, comment, creator, type, generic attribute). Every criterion given must match.
///
/// Generic over the query too, without requirements (``ItemCriteria`` names it for a class), so that making its
/// metadata at run time checks no conformance: that check scans every conformance in the binary the first time,
/// which a short command such as `find-generic-password` notices.
struct SearchCriteria<Item, Query> {
    /// The query listing the candidates.
    let query: Query
    /// Whether any criterion was given (`delete-…-password` refuses to delete "the first item of all").
    let isEmpty: Bool
    private let checks: [(Item) -> Bool]

    /// Whether an item the query listed meets every other criterion.
    func matches(_ item: Item) -> Bool {
        checks.allSatisfy { $0(item) }
    }
}

extension SearchCriteria where Item: PasswordItem, Query == Item.Query {
    /// Criteria from the class's query and checks, plus the options every class shares: `-D` kind, `-j` comment,
    /// `-c` creator, `-C` type (the label `-l` and `--access-group` belong in the query).
    init(
        query: Item.Query, classChecks: [(Item) -> Bool], hasClassCriteria: Bool, arguments: ParsedArguments
    ) throws(ToolFailure) {
        var checks = classChecks
        if let kind = arguments.value("D") { checks.append { $0.itemDescription == kind } }
        if let comment = arguments.value("j") { checks.append { $0.comment == comment } }
        if let creator = try ItemOptions.fourCharacterCode(arguments, "c") { checks.append { $0.creator == creator } }
        if let type = try ItemOptions.fourCharacterCode(arguments, "C") { checks.append { $0.type == type } }
        self.query = query
        self.checks = checks
        isEmpty =
            !hasClassCriteria && checks.count == classChecks.count && arguments.value("l") == nil
            && arguments.value(long: ItemOptions.accessGroup) == nil
    }

}
