import Foundation
import Keychain

extension GenericPassword: PasswordItemOptions {
    /// `-a` account and `-s` service (both required, as on macOS), `-G` generic attribute, `-l` label (the
    /// service by default).
    static func new(from arguments: ParsedArguments) throws(ToolFailure) -> GenericPassword {
        guard let account = arguments.value("a") else { throw .usage("the account (-a) is required") }
        guard let service = arguments.value("s") else { throw .usage("the service (-s) is required") }
        var item = GenericPassword(
            account: account, service: service, label: arguments.value("l") ?? service,
            generic: arguments.value("G").map { Data($0.utf8) })
        try ItemOptions.describe(&item, arguments)
        return item
    }

    /// `-a` account, `-s` service, `-l` label, `-G` generic attribute, `--access-group`, and the shared ones.
    static func criteria(from arguments: ParsedArguments) throws(ToolFailure) -> ItemCriteria<GenericPassword> {
        var query = Query(
            account: arguments.value("a"), service: arguments.value("s"), label: arguments.value("l"),
            accessGroup: try ItemOptions.accessGroupValue(arguments), synchronizable: nil)
        query.generic = arguments.value("G").map { Data($0.utf8) }
        let shared = try SharedTerms(arguments)
        query.itemDescription = shared.kind
        query.comment = shared.comment
        query.creator = shared.creator
        query.type = shared.type
        return ItemCriteria(query: query, hasClassCriteria: "asG".contains { arguments.has($0) }, arguments: arguments)
    }
}
