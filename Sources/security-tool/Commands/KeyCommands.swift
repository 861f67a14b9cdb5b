import Foundation
import Keychain
import KeychainCore

extension Command {
    /// `create-keypair [-a alg] [-s size] [--tag tag] [--extractable] [-k keychain] [--json] [name]`: a key pair made
    /// inside the keychain (through keychaind, inside the daemon); the private key is not extractable unless asked.
    static let createKeypair = Command(
        name: "create-keypair",
        usage: """
            [-a alg] [-s size] [--tag tag] [--extractable] [-k keychain] [--json] [name]
                -a  Use alg as the algorithm: rsa or ec (default ec)
                -s  Specify the key size in bits (ec: 256, 384 or 521, default 256; rsa: 1024 to 4096, default 2048)
                -k  Use the specified keychain rather than the default
                --tag tag  Store the key with this application tag (kSecAttrApplicationTag)
                --extractable  Let the private key's bytes leave the keychain (by default they never do)
                --json  Print the key as JSON
            The name, when given, is the keys' label.
            """,
        help: "Create an asymmetric key pair.",
        options: OptionSpecification(
            "a:s:k:",
            long: [
                .json, OptionSpecification.LongOption(name: "tag", takesValue: true),
                OptionSpecification.LongOption(name: "extractable", takesValue: false),
            ])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count <= 1 else { throw .usage("give at most one name") }
        let algorithm = try KeyOutput.algorithm(arguments.value("a"), size: arguments.value("s"))
        let location = try arguments.value("k").map(KeychainLocation.named) ?? .standard
        let keychain = try session.keychains.keychain(at: location, context: "SecKeyCreateRandomKey")
        let key: KeychainKey
        do throws(KeychainError) {
            key = try keychain.generateKey(
                algorithm, tag: arguments.value(long: "tag").map { Data($0.utf8) }, label: arguments.positionals.first,
                isExtractable: arguments.has(long: "extractable"))
        } catch {
            throw .keychain(error, "SecKeyCreateRandomKey")
        }
        if arguments.has(long: "json") {
            session.console.print(KeyOutput.json(key).text)
        } else {
            session.console.print(KeyOutput.block(key, in: location))
        }
        return 0
    }
}

/// How keys are described on output: never a private key's bytes.
enum KeyOutput {
    /// The algorithm `-a` and `-s` name.
    static func algorithm(_ name: String?, size: String?) throws(ToolFailure) -> KeychainKey.Algorithm {
        let bits = try size.map { (text) throws(ToolFailure) -> Int in
            guard let bits = Int(text), bits > 0 else { throw .usage("the key size \"\(text)\" is not a number") }
            return bits
        }
        switch name?.lowercased() ?? "ec" {
        case "ec", "ecdsa", "ecc": return .ellipticCurve(bits: bits ?? 256)
        case "rsa": return .rsa(bits: bits ?? 2048)
        default: throw .usage("the algorithm \"\(name ?? "")\" is not rsa or ec")
        }
    }

    /// The key as lines, as dump-keychain prints items.
    static func block(_ key: KeychainKey, in location: KeychainLocation) -> String {
        var lines = [
            "keychain: \"\(location.path)\"", "class: \"keys\"", "attributes:",
            "    \"kcls\"<uint32>=\(key.isPrivate ? 1 : 0)",
            "    \"type\"<uint32>=\(key.algorithm.keyTypeNumber)",
            "    \"bsiz\"<uint32>=\(key.algorithm.bitCount)",
            "    \"klbl\"<blob>=0x\(hex(key.applicationLabel))",
            "    \"extr\"<uint32>=\(key.isExtractable ? 1 : 0)",
            "    \"agrp\"<blob>=\"\(key.accessGroup ?? "")\"",
        ]
        if let label = key.label { lines.append("    \"labl\"<blob>=\"\(label)\"") }
        if let tag = key.tag { lines.append("    \"atag\"<blob>=\"\(String(decoding: tag, as: UTF8.self))\"") }
        return lines.joined(separator: "\n")
    }

    /// The key as a JSON object (its public key, never the private one).
    static func json(_ key: KeychainKey) -> JSONValue {
        var object: [String: JSONValue] = [
            "class": .string("keys"), "private": .bool(key.isPrivate), "algorithm": .string(key.algorithm.description),
            "applicationLabel": .string(hex(key.applicationLabel)), "extractable": .bool(key.isExtractable),
            "publicKey": .data(key.publicKey), "persistentReference": .data(key.persistentReference),
        ]
        if let label = key.label { object["label"] = .string(label) }
        if let tag = key.tag { object["tag"] = .data(tag) }
        if let group = key.accessGroup { object["accessGroup"] = .string(group) }
        return .object(object)
    }

    /// Upper-case hexadecimal, as macOS's tool prints hashes.
    static func hex(_ data: Data) -> String {
        data.hexText(uppercase: true)
    }
}
