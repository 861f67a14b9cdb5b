import Foundation
import Keychain

/// What `find-` and `delete-…-password` match: a `Keychain` query for the attributes it can look up, and checks
/// for the others (kind, comment, creator, type, generic attribute). Every criterion given must match.
struct ItemCriteria<Item: PasswordItem> {
    /// The query listing the candidates.
    let query: Item.Query
    /// Whether any criterion was given (`delete-…-password` refuses to delete "the first item of all").
    let isEmpty: Bool
    private let checks: [(Item) -> Bool]

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

    /// Whether an item the query listed meets every other criterion.
    func matches(_ item: Item) -> Bool {
        checks.allSatisfy { $0(item) }
    }
}

/// Option values the item verbs share.
enum ItemOptions {
    /// `--access-group group`: the access group to add to or search (the tool sees every group by default).
    static let accessGroup = "access-group"
    /// `--accessibility class`: when a new item can be read (`ak`, `ck`, … or `whenUnlocked`, …).
    static let accessibility = "accessibility"

    /// A four-character code option (`-c`, `-C`, `-r`, `-t`) as a number, or `nil` when absent. macOS requires
    /// exactly four characters, and so do we.
    static func fourCharacterCode(_ arguments: ParsedArguments, _ letter: Character) throws(ToolFailure) -> UInt32? {
        guard let text = try fourCharacterText(arguments, letter) else { return nil }
        return text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A four-character code option as text, or `nil` when absent.
    static func fourCharacterText(_ arguments: ParsedArguments, _ letter: Character) throws(ToolFailure) -> String? {
        guard let text = arguments.value(letter) else { return nil }
        guard text.utf8.count == 4 else {
            let hint = text.utf8.count == 3 ? " (try \"\(text) \" instead of \"\(text)\")" : ""
            throw .usage("-\(letter) \"\(text)\": four-character types must be exactly 4 characters long\(hint)")
        }
        return text
    }

    /// `-P port`: 0 to 65535, 0 meaning none.
    static func port(_ arguments: ParsedArguments) throws(ToolFailure) -> Int? {
        guard let text = arguments.value("P") else { return nil }
        guard let port = Int(text), (0...65535).contains(port) else {
            throw .usage("-P \"\(text)\": the port must be a number from 0 to 65535")
        }
        return port == 0 ? nil : port
    }

    /// `--accessibility`: Apple's `pdmn` value (`ak`) or the `Accessibility` case name (`whenUnlocked`).
    static func accessibility(_ arguments: ParsedArguments) throws(ToolFailure) -> Accessibility? {
        guard let text = arguments.value(long: accessibility) else { return nil }
        if let value = Accessibility(rawValue: text) ?? Accessibility.allCases.first(where: { "\($0)" == text }) {
            return value
        }
        let names = Accessibility.allCases.map { "\($0.rawValue) (\($0))" }.joined(separator: ", ")
        throw .usage("--accessibility \"\(text)\" is not one of: \(names)")
    }

    /// The label `-l`, the kind `-D`, the comment `-j`, creator `-c` and type `-C` of a new item.
    static func describe<Item: PasswordItem>(_ item: inout Item, _ arguments: ParsedArguments) throws(ToolFailure) {
        item.itemDescription = arguments.value("D")
        item.comment = arguments.value("j")
        item.creator = try fourCharacterCode(arguments, "c")
        item.type = try fourCharacterCode(arguments, "C")
        if let accessibility = try accessibility(arguments) { item.accessibility = accessibility }
    }
}
