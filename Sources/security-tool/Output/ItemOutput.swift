import Foundation

/// An item as the reading verbs print it: macOS's attribute block, or a JSON object with `--json`.
enum ItemOutput {
    /// macOS's block: `keychain: "…"`, `class: "genp"`, `attributes:` and one line per attribute. (macOS also prints
    /// a `version:` line, the file format's version; a swift-keychain keychain has none to print.)
    static func block<Item: PasswordItem>(_ item: Item, in location: KeychainLocation) -> String {
        var lines = [
            "keychain: " + PrintBuffer.format(Array(location.path.utf8)),
            "class: " + PrintBuffer.format(Array(Item.classCode.utf8)),
            "attributes:",
        ]
        lines += item.attributeLines.map(\.text)
        return lines.joined(separator: "\n")
    }

    /// Prints the item's block, or with `json` its JSON object, on standard output.
    static func print<Item: PasswordItem>(_ item: Item, in location: KeychainLocation, json: Bool, _ console: Console) {
        console.print(json ? self.json(item, in: location, secret: nil).text : block(item, in: location))
    }

    /// `{"keychain": …, "class": "genp", "attributes": {…}}`, with the secret when one is given.
    static func json<Item: PasswordItem>(_ item: Item, in location: KeychainLocation, secret: Data?) -> JSONValue {
        var members: [String: JSONValue] = [
            "keychain": .string(location.path), "class": .string(Item.classCode), "attributes": item.attributesJSON,
        ]
        if let secret { members.merge(secretJSON(secret)) { _, new in new } }
        return .object(members)
    }

    /// The secret as JSON members: `password` when it is UTF-8 text, `passwordBase64` when it is not.
    static func secretJSON(_ secret: Data) -> [String: JSONValue] {
        if let text = String(data: secret, encoding: .utf8) { return ["password": .string(text)] }
        return ["passwordBase64": .data(secret)]
    }
}
