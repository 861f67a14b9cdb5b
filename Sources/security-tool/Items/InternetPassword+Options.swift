import Foundation
import Keychain

extension InternetPassword: PasswordItemOptions {
    /// `-a` account and `-s` server (both required, as on macOS), `-r` protocol, `-t` authentication type, `-P`
    /// port, `-p` path, `-d` security domain, `-l` label (the server by default).
    static func new(from arguments: ParsedArguments) throws(ToolFailure) -> InternetPassword {
        guard let account = arguments.value("a") else { throw .usage("the account (-a) is required") }
        guard let server = arguments.value("s") else { throw .usage("the server (-s) is required") }
        var item = InternetPassword(
            account: account, server: server,
            protocol: try ItemOptions.fourCharacterText(arguments, "r").map(InternetProtocol.init(rawValue:)),
            authenticationType: try ItemOptions.fourCharacterText(arguments, "t").map(AuthenticationType.init),
            port: try ItemOptions.port(arguments), path: arguments.value("p"),
            securityDomain: arguments.value("d"), label: arguments.value("l") ?? server)
        try ItemOptions.describe(&item, arguments)
        return item
    }

    /// The same attributes as `new(from:)` matches (none required), `--access-group`, and the shared ones.
    static func criteria(from arguments: ParsedArguments) throws(ToolFailure) -> ItemCriteria<InternetPassword> {
        var query = Query(
            account: arguments.value("a"), server: arguments.value("s"),
            protocol: try ItemOptions.fourCharacterText(arguments, "r").map(InternetProtocol.init(rawValue:)),
            authenticationType: try ItemOptions.fourCharacterText(arguments, "t").map(AuthenticationType.init),
            port: try ItemOptions.port(arguments), path: arguments.value("p"), securityDomain: arguments.value("d"),
            label: arguments.value("l"), accessGroup: try ItemOptions.accessGroupValue(arguments),
            synchronizable: nil)
        let shared = try SharedTerms(arguments)
        query.itemDescription = shared.kind
        query.comment = shared.comment
        query.creator = shared.creator
        query.type = shared.type
        let given = "asrtPpd".contains { arguments.has($0) }
        return ItemCriteria(query: query, hasClassCriteria: given, arguments: arguments)
    }
}
