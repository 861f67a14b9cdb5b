import Foundation
import Keychain

extension GenericPassword: PasswordItem {
    static let classCode = "genp"

    var classAttributeLines: [AttributeLine] {
        [
            AttributeLine("acct", .blob, AttributeLine.text(account)),
            AttributeLine("gena", .blob, generic.map { Array($0) }),
            AttributeLine("svce", .blob, AttributeLine.text(service)),
        ]
    }

    var classJSON: [String: JSONValue] {
        var members: [String: JSONValue] = ["acct": .string(account), "svce": .string(service)]
        members["gena"] = generic.map(JSONValue.data)
        return members
    }

    var listingOrder: [String] { [service, account, accessGroup ?? ""] }

    static func items(matching query: Query, in keychain: Keychain) throws(KeychainError) -> [GenericPassword] {
        try keychain.items(matching: query)
    }

    static func itemsWithSecrets(
        matching query: Query, limit: Int, in keychain: Keychain
    ) throws(KeychainError) -> [(item: GenericPassword, secret: Data)]? {
        try keychain.itemsWithSecrets(matching: query, limit: limit)
    }

    func add(to keychain: Keychain, secret: Data) throws(KeychainError) -> GenericPassword {
        try keychain.add(self, secret: secret)
    }

    func addOrUpdate(in keychain: Keychain, secret: Data) throws(KeychainError) -> GenericPassword {
        try keychain.addOrUpdate(self, secret: secret)
    }

    func remove(from keychain: Keychain) throws(KeychainError) -> Bool {
        try keychain.remove(self)
    }

    func secret(in keychain: Keychain) throws(KeychainError) -> Data? {
        try keychain.secret(for: self)
    }
}
