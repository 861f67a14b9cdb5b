import Foundation
import Keychain

extension Command {
    /// `delete-generic-password`: prints the first generic password matching the options, then deletes it.
    static let deleteGenericPassword = deletePassword(
        GenericPassword.self, name: "delete-generic-password", help: "Delete a generic password item.",
        usage: """
            [-a account] [-s service] [options...] [keychain...]
                -a  Match "account" string
                -c  Match "creator" (four-character code)
                -C  Match "type" (four-character code)
                -D  Match "kind" string
                -G  Match "value" string (generic attribute)
                -j  Match "comment" string
                -l  Match "label" string
                -s  Match "service" string
                --access-group group  Match the access group (every group is searched by default)
                --json  Print the deleted item as JSON
            If no keychains are specified to search, the default keychain is used.
            """,
        letters: "a:c:C:D:G:j:l:s:")

    /// `delete-internet-password`: prints the first internet password matching the options, then deletes it.
    static let deleteInternetPassword = deletePassword(
        InternetPassword.self, name: "delete-internet-password", help: "Delete an internet password item.",
        usage: """
            [-a account] [-s server] [options...] [keychain...]
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
                --access-group group  Match the access group (every group is searched by default)
                --json  Print the deleted item as JSON
            If no keychains are specified to search, the default keychain is used.
            """,
        letters: "a:c:C:d:D:j:l:p:P:r:s:t:")

    private static func deletePassword<Item: PasswordItemOptions>(
        _ type: Item.Type, name: String, help: String, usage: String, letters: String
    ) -> Command {
        Command(
            name: name, usage: usage, help: help,
            options: .itemSearch(letters)
        ) { arguments, session throws(ToolFailure) in
            let criteria = try Item.criteria(from: arguments)
            guard !criteria.isEmpty else {
                throw .usage("say which item to delete: give at least one attribute to match")
            }
            let locations = try KeychainLocation.all(arguments.positionals)
            try ItemLookup.withFirst(criteria, in: locations, session) { found, location throws(ToolFailure) in
                let keychain = try session.keychains.keychain(at: location, context: "SecKeychainItemDelete")
                do throws(KeychainError) {
                    let removed = try session.keychains.unlocking(keychain, at: location) {
                        () throws(KeychainError) in try found.remove(from: keychain)
                    }
                    guard removed else { return false }
                } catch {
                    throw .keychain(error, "SecKeychainItemDelete")
                }
                ItemOutput.print(found, in: location, json: arguments.has(long: "json"), session.console)
                session.console.printError("password has been deleted.")
                return true
            }
            return 0
        }
    }
}
