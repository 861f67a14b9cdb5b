import Foundation

@testable import KeychainCore

/// The caller `keychain-stress` writes as.
let stressCaller = Caller(applicationIdentifier: "TEAM.stress")

extension Engine {
    /// The secret of a `keychain-stress` item (account `key`, service `stress`), or `nil` when there is none.
    func stressSecret(_ key: String) throws -> String? {
        do {
            let items = try copyMatching(
                ItemQuery(
                    itemClass: .genericPassword, attributes: [.account: .string(key), .service: .string("stress")],
                    returning: .data),
                for: stressCaller)
            return String(decoding: items[0].data ?? Data(), as: UTF8.self)
        } catch {
            // An exhaustive catch: `catch where` on a typed-throws body crashes Swift 6.3's SILGen.
            if error.code == .itemNotFound { return nil }
            throw error
        }
    }
}
