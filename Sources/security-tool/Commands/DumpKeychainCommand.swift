import Foundation
import Keychain

extension Command {
    /// `dump-keychain [-ad] [keychain...]`: every generic and internet password of every access group, attributes
    /// only, or with `-d` their data too (asking for the passcode when the keychain is locked); then the keys
    /// (never a private key's bytes) and the certificates.
    static let dumpKeychain = Command(
        name: "dump-keychain",
        usage: """
            [-ad] [keychain...]
                -a  Accepted for compatibility (items have access groups, not access control lists)
                -d  Dump (decrypted) data of items
                --json  Print the items as a JSON array
            """,
        help: "Dump the contents of one or more keychains.",
        options: OptionSpecification("adir", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        if arguments.has("r") {
            throw .usage("-r (raw encrypted data) is not available: only the engine handles sealed items")
        }
        if arguments.has("i") {
            throw .usage("-i (access control list editing) is not available: items have access groups instead")
        }
        let withData = arguments.has("d")
        let json = arguments.has(long: "json")
        var objects: [JSONValue] = []
        for location in try KeychainLocation.all(arguments.positionals) {
            let everyGeneric = try ItemCriteria<GenericPassword>.everything()
            let everyInternet = try ItemCriteria<InternetPassword>.everything()
            for item in try ItemLookup.all(everyGeneric, in: location, session) {
                try dump(item, in: location, withData: withData, json: json, into: &objects, session)
            }
            for item in try ItemLookup.all(everyInternet, in: location, session) {
                try dump(item, in: location, withData: withData, json: json, into: &objects, session)
            }
            let keychain = try session.keychains.keychain(at: location, context: "SecKeychainSearchCopyNext")
            do throws(KeychainError) {
                for key in try keychain.keys() {
                    if json {
                        objects.append(KeyOutput.json(key))
                    } else {
                        session.console.print(KeyOutput.block(key, in: location))
                    }
                }
                for certificate in try keychain.certificates() {
                    if json {
                        objects.append(CertificateLookup.json(certificate))
                    } else {
                        session.console.print(CertificateLookup.block(certificate, in: location))
                    }
                }
            } catch {
                throw .keychain(error, "SecKeychainSearchCopyNext")
            }
        }
        if json { session.console.print(JSONValue.array(objects).text) }
        return 0
    }

    /// Prints one item (as macOS does: back to back, with `data:` and the data after the attributes for `-d`),
    /// or adds it to the JSON array.
    private static func dump<Item: PasswordItem>(
        _ item: Item, in location: KeychainLocation, withData: Bool, json: Bool, into objects: inout [JSONValue],
        _ session: ToolSession
    ) throws(ToolFailure) {
        var secret: Data?
        var withheld: String?
        if withData {
            do throws(ToolFailure) {
                secret = try ItemLookup.secret(of: item, in: location, session)
            } catch {
                // An item with access control shows its constraint; its data only once the constraint is met.
                guard let flags = item.accessControl else { throw error }
                withheld = "<not shown: its access control (\(flags.names)) was not satisfied>"
            }
        }
        defer { SecretReader.zero(&secret) }
        if json {
            objects.append(ItemOutput.json(item, in: location, secret: secret))
            return
        }
        session.console.print(ItemOutput.block(item, in: location))
        if let secret {
            session.console.print { text in
                text.append(contentsOf: "data:\n".utf8)
                PrintBuffer.append(secret, to: text)
            }
        } else if let withheld {
            session.console.print("data:\n" + withheld)
        }
    }
}

extension SearchCriteria where Item: PasswordItemOptions, Query == Item.Query {
    /// Every item of the class, in every access group, synchronizable or not.
    static func everything() throws(ToolFailure) -> ItemCriteria<Item> {
        try Item.criteria(from: ParsedArguments([], specification: OptionSpecification("")))
    }
}
