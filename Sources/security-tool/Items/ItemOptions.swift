import Foundation
import Keychain

extension OptionSpecification {
    /// The options of a verb that searches items: `letters`, `--json` and `--access-group group`.
    static func itemSearch(_ letters: String) -> OptionSpecification {
        OptionSpecification(letters, long: [.json, .init(name: ItemOptions.accessGroup, takesValue: true)])
    }
}

/// Option values the item verbs share.
enum ItemOptions {
    /// `--access-group group`: the access group to add to or search (the tool sees every group by default).
    static let accessGroup = "access-group"
    /// `--accessibility class`: when a new item can be read (`ak`, `ck`, … or `whenUnlocked`, …).
    static let accessibility = "accessibility"
    /// `--access-control flags`: what reading a new item's data requires (`userPresence`, `applicationPassword,or`…).
    static let accessControl = "access-control"

    /// The flags `--access-control` names, comma-separated, by their Swift names.
    private static let accessControlNames: [String: AccessControlFlags] = [
        "userPresence": .userPresence, "devicePasscode": .devicePasscode,
        "applicationPassword": .applicationPassword, "biometryAny": .biometryAny,
        "biometryCurrentSet": .biometryCurrentSet, "companion": .companion, "or": .or, "and": .and,
    ]

    /// `--access-control`, or `nil` when absent; an unknown name or a combination Apple refuses is a usage error.
    static func accessControl(_ arguments: ParsedArguments) throws(ToolFailure) -> AccessControlFlags? {
        guard let text = arguments.value(long: accessControl) else { return nil }
        var flags: AccessControlFlags = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard let flag = accessControlNames[name] else {
                let known = accessControlNames.keys.sorted().joined(separator: ", ")
                throw .usage("--access-control \"\(text)\": \"\(name)\" is not one of: \(known)")
            }
            flags.insert(flag)
        }
        if let problem = flags.combinationProblem { throw .usage("--access-control \"\(text)\": \(problem)") }
        guard !flags.isEmpty else { throw .usage("--access-control needs at least one flag") }
        return flags
    }
    /// `--synchronizable`: a new item syncs to the user's other devices (`sync-init`, `sync-join`).
    static let synchronizable = "synchronizable"

    /// `--access-group group`, or `nil` when absent. An empty group names no group: a usage error, rather than an
    /// item no caller could be entitled to, or a search that can match nothing.
    static func accessGroupValue(_ arguments: ParsedArguments) throws(ToolFailure) -> String? {
        guard let group = arguments.value(long: accessGroup) else { return nil }
        guard !group.isEmpty else { throw .usage("--\(accessGroup) needs a group name, not an empty one") }
        return group
    }

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
        if arguments.has(long: synchronizable) { item.isSynchronizable = true }
    }
}
