import Foundation
import Keychain

extension InternetPassword: PasswordItem {
    static let classCode = "inet"

    var classAttributeLines: [AttributeLine] {
        [
            AttributeLine("acct", .blob, AttributeLine.text(account)),
            AttributeLine("atyp", .blob, AttributeLine.text(authenticationType?.rawValue)),
            AttributeLine("path", .blob, AttributeLine.text(path)),
            // macOS always writes a port and a protocol, 0 when none is given.
            AttributeLine("port", .uint32, AttributeLine.number(UInt32(clamping: port ?? 0))),
            AttributeLine("ptcl", .uint32, self.protocol.map { Array($0.rawValue.utf8) } ?? AttributeLine.number(0)),
            AttributeLine("sdmn", .blob, AttributeLine.text(securityDomain)),
            AttributeLine("srvr", .blob, AttributeLine.text(server)),
        ]
    }

    var classJSON: [String: JSONValue] {
        var members: [String: JSONValue] = ["acct": .string(account), "srvr": .string(server)]
        members["ptcl"] = self.protocol.map { .string($0.rawValue) }
        members["atyp"] = authenticationType.map { .string($0.rawValue) }
        members["port"] = port.map { .number(Int64($0)) }
        members["path"] = path.map(JSONValue.string)
        members["sdmn"] = securityDomain.map(JSONValue.string)
        return members
    }

    var listingOrder: [String] { [server, account, accessGroup ?? ""] }

    static func items(matching query: Query, in keychain: Keychain) throws(KeychainError) -> [InternetPassword] {
        try keychain.items(matching: query)
    }

    static func itemsWithSecrets(
        matching query: Query, limit: Int, in keychain: Keychain
    ) throws(KeychainError) -> [(item: InternetPassword, secret: Data)]? {
        try keychain.itemsWithSecrets(matching: query, limit: limit)
    }

    func add(to keychain: Keychain, secret: Data) throws(KeychainError) -> InternetPassword {
        try keychain.add(self, secret: secret)
    }

    func addOrUpdate(in keychain: Keychain, secret: Data) throws(KeychainError) -> InternetPassword {
        try keychain.addOrUpdate(self, secret: secret)
    }

    func remove(from keychain: Keychain) throws(KeychainError) -> Bool {
        try keychain.remove(self)
    }

    func secret(in keychain: Keychain) throws(KeychainError) -> Data? {
        try keychain.secret(for: self)
    }
}
