import Foundation
import Keychain
import Security

extension Command {
    /// `add-generic-password`: adds (or with `-U` updates) a generic password.
    static let addGenericPassword = addPassword(
        GenericPassword.self, name: "add-generic-password", help: "Add a generic password item.",
        usage: """
            [-a account] [-s service] [-w password] [options...] [-A|-T appPath] [keychain]
                -a  Specify account name (required)
                -c  Specify item creator (optional four-character code)
                -C  Specify item type (optional four-character code)
                -D  Specify kind (default is "application password")
                -G  Specify generic attribute (optional)
                -j  Specify comment string (optional)
                -l  Specify label (if omitted, service name is used as default label)
                -s  Specify service name (required)
                -p  Specify password to be added (legacy option, equivalent to -w)
                -w  Specify password to be added
                -X  Specify password data to be added as a hexadecimal string
                -A  Accepted for compatibility (access groups, not application lists, say who may read items)
                -T  Accepted for compatibility (multiple -T options are allowed)
                -U  Update item if it already exists (if omitted, the item cannot already exist)
                --access-group group  Add to this access group (default: the tool's own, "security")
                --accessibility class  When the item can be read: ak (default), ck, dk, aku, cku, dku, akpu
                --access-control flags  What reading its data requires, comma-separated: userPresence or
                    devicePasscode (the keychain passcode), applicationPassword, with or/and (e.g.
                    devicePasscode,applicationPassword,or); the finding verbs then ask for it
                --synchronizable  Sync the item to the user's other devices (see sync-init)

            If no keychain is specified, the password is added to the default keychain.
            Specify -w as the last argument to be prompted, or to read the password from standard input.
            A password may be up to \(InputLimits.describe(InputLimits.secretByteCount)); a longer one is refused.

            """,
        letters: "a:c:C:D:G:j:l:s:p?w?X:UAT:", secrets: "pwX")

    /// `add-internet-password`: adds (or with `-U` updates) an internet password.
    static let addInternetPassword = addPassword(
        InternetPassword.self, name: "add-internet-password", help: "Add an internet password item.",
        usage: """
            [-a account] [-s server] [-w password] [options...] [-A|-T appPath] [keychain]
                -a  Specify account name (required)
                -c  Specify item creator (optional four-character code)
                -C  Specify item type (optional four-character code)
                -d  Specify security domain string (optional)
                -D  Specify kind (default is "Internet password")
                -j  Specify comment string (optional)
                -l  Specify label (if omitted, server name is used as default label)
                -p  Specify path string (optional)
                -P  Specify port number (optional)
                -r  Specify protocol (optional four-character SecProtocolType, e.g. "http", "ftp ")
                -s  Specify server name (required)
                -t  Specify authentication type (optional four-character SecAuthenticationType, e.g. "dflt")
                -w  Specify password to be added
                -X  Specify password data to be added as a hexadecimal string
                -A  Accepted for compatibility (access groups, not application lists, say who may read items)
                -T  Accepted for compatibility (multiple -T options are allowed)
                -U  Update item if it already exists (if omitted, the item cannot already exist)
                --access-group group  Add to this access group (default: the tool's own, "security")
                --accessibility class  When the item can be read: ak (default), ck, dk, aku, cku, dku, akpu
                --access-control flags  What reading its data requires, comma-separated: userPresence or
                    devicePasscode (the keychain passcode), applicationPassword, with or/and (e.g.
                    devicePasscode,applicationPassword,or); the finding verbs then ask for it
                --synchronizable  Sync the item to the user's other devices (see sync-init)

            If no keychain is specified, the password is added to the default keychain.
            Specify -w as the last argument to be prompted, or to read the password from standard input.
            A password may be up to \(InputLimits.describe(InputLimits.secretByteCount)); a longer one is refused.

            """,
        letters: "a:c:C:d:D:j:l:p:P:r:s:t:w?X:UAT:", secrets: "wX")

    private static func addPassword<Item: PasswordItemOptions>(
        _ type: Item.Type, name: String, help: String, usage: @escaping @autoclosure @Sendable () -> String,
        letters: String, secrets: String
    ) -> Command {
        Command(
            name: name, usage: usage(), help: help,
            options: OptionSpecification(
                letters,
                long: [
                    .init(name: ItemOptions.accessGroup, takesValue: true),
                    .init(name: ItemOptions.accessibility, takesValue: true),
                    .init(name: ItemOptions.accessControl, takesValue: true),
                    .init(name: ItemOptions.synchronizable, takesValue: false),
                ], secrets: secrets, repeatable: "T")
        ) { arguments, session throws(ToolFailure) in
            var item = try Item.new(from: arguments)
            item.accessControl = try ItemOptions.accessControl(arguments)
            let location = try KeychainLocation.single(arguments.positionals)
            if let group = try ItemOptions.accessGroupValue(arguments) {
                item.accessGroup = group
            } else {
                item.accessGroup = try session.keychains.defaultAccessGroup(for: location)
            }
            var secret = try NewItemPassword.read(arguments, session, letters: secrets)
            defer { secret.resetBytes(in: 0..<secret.count) }
            let context =
                Item.self == GenericPassword.self
                ? "SecKeychainItemCreateFromContent (\(location.name(or: "<default>")))"
                : "SecKeychainAddInternetPassword \(location.name(or: "<NULL>"))"
            let keychain = try session.keychains.keychain(at: location, context: context)
            // `-U`: one add-or-update, so no other writer can come between finding the item and writing it.
            let upserts = arguments.has("U")
            do throws(KeychainError) {
                _ = try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) -> Item in
                    upserts
                        ? try item.addOrUpdate(in: keychain, secret: secret)
                        : try item.add(to: keychain, secret: secret)
                }
                return 0
            } catch {
                throw .keychain(error, context)
            }
        }
    }
}
