import Foundation
import Keychain

extension Command {
    /// `find-generic-password`: the first generic password matching the options, in macOS's format or as JSON.
    static let findGenericPassword = findPassword(
        GenericPassword.self, name: "find-generic-password", help: "Find a generic password item.",
        usage: """
            [-a account] [-s service] [options...] [-g] [keychain...]
                -a  Match "account" string
                -c  Match "creator" (four-character code)
                -C  Match "type" (four-character code)
                -D  Match "kind" string
                -G  Match "value" string (generic attribute)
                -j  Match "comment" string
                -l  Match "label" string
                -s  Match "service" string
                -g  Display the password for the item found
                -w  Display only the password on stdout
                --access-group group  Match the access group (every group is searched by default)
                --json  Print the item as JSON
            If no keychains are specified to search, the default keychain is used.
            """,
        letters: "a:c:C:D:G:j:l:s:gw")

    /// `find-internet-password`: the first internet password matching the options.
    static let findInternetPassword = findPassword(
        InternetPassword.self, name: "find-internet-password", help: "Find an internet password item.",
        usage: """
            [-a account] [-s server] [options...] [-g] [keychain...]
                -a  Match "account" string
                -c  Match "creator" (four-character code)
                -C  Match "type" (four-character code)
                -d  Match "securityDomain" string
                -D  Match "kind" string
                -j  Match "comment" string
                -l  Match "label" string
                -p  Match "path" string
                -P  Match port number
                -r  Match "protocol" (four-character code)
                -s  Match "server" string
                -t  Match "authenticationType" (four-character code)
                -g  Display the password for the item found
                -w  Display only the password on stdout
                --access-group group  Match the access group (every group is searched by default)
                --json  Print the item as JSON
            If no keychains are specified to search, the default keychain is used.
            """,
        letters: "a:c:C:d:D:j:l:p:P:r:s:t:gw")

    private static func findPassword<Item: PasswordItemOptions>(
        _ type: Item.Type, name: String, help: String, usage: String, letters: String
    ) -> Command {
        Command(
            name: name, usage: usage, help: help,
            options: .itemSearch(letters)
        ) { arguments, session throws(ToolFailure) in
            let criteria = try Item.criteria(from: arguments)
            let onlyPassword = arguments.has("w")
            let withPassword = onlyPassword || arguments.has("g")
            let locations = try KeychainLocation.all(arguments.positionals)
            let json = arguments.has(long: "json")
            if withPassword, var read = try ItemLookup.firstWithSecret(criteria, in: locations, session) {
                defer { read.secret.resetBytes(in: 0..<read.secret.count) }
                printFound(read.item, read.secret, onlyPassword: onlyPassword, json: json, read.location, session)
                return 0
            }
            // Without the password, or when an item with access control is among the candidates (its secret is
            // read alone, asking the user).
            try ItemLookup.withFirst(criteria, in: locations, session) { found, location throws(ToolFailure) in
                var secret: Data?
                if withPassword {
                    secret = try ItemLookup.secret(of: found, in: location, session)
                    guard secret != nil else { return false }
                }
                defer { SecretReader.zero(&secret) }
                printFound(found, secret, onlyPassword: onlyPassword, json: json, location, session)
                return true
            }
            return 0
        }
    }

    /// `-w`: the password alone on standard output; `-g`: the attributes on standard output and the password on
    /// standard error, as macOS's tool does; `--json`: one JSON object on standard output.
    private static func printFound<Item: PasswordItem>(
        _ item: Item, _ secret: Data?, onlyPassword: Bool, json: Bool, _ location: KeychainLocation,
        _ session: ToolSession
    ) {
        if json {
            let object =
                onlyPassword
                ? JSONValue.object(secret.map(ItemOutput.secretJSON) ?? [:])
                : ItemOutput.json(item, in: location, secret: secret)
            session.console.print(object.text)
        } else if onlyPassword, let secret {
            PrintBuffer.writePasswordOnly(secret, to: session.console)
        } else {
            ItemOutput.print(item, in: location, json: false, session.console)
            if let secret {
                session.console.printError { line in
                    line.append(contentsOf: "password: ".utf8)
                    PrintBuffer.append(secret, to: line)
                }
            }
        }
    }
}
