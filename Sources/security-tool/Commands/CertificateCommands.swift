import Foundation
import Keychain
import Security

extension Command {
    /// `find-certificate [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]`: the first certificate (or
    /// with `-a` every one) whose label or subject contains the name and that has the e-mail address.
    static let findCertificate = Command(
        name: "find-certificate",
        usage: """
            [-h] [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]
                -a  Find all matching certificates, not just the first one
                -c  Match on "name" when searching (optional)
                -e  Match on "emailAddress" when searching (optional)
                -m  Show the email addresses in the certificate
                -p  Output certificate in pem format
                -Z  Print SHA-256 (and SHA-1) hash of the certificate
                --json  Print the certificates as a JSON array
            If no keychains are specified to search, the default search list is used.
            """,
        help: "Find a certificate item.",
        options: OptionSpecification("ac:e:mpZ", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        var found = try CertificateLookup.matching(arguments, session, context: "SecKeychainSearchCopyNext")
        guard !found.isEmpty else {
            throw .failed(
                status: errSecItemNotFound,
                message: "The specified item could not be found in the keychain.")
        }
        if !arguments.has("a") { found = [found[0]] }
        if arguments.has(long: "json") {
            session.console.print(JSONValue.array(found.map { CertificateLookup.json($0.certificate) }).text)
            return 0
        }
        for (certificate, location) in found {
            if arguments.has("Z") {
                session.console.print("SHA-256 hash: \(KeyOutput.hex(certificate.sha256))")
                session.console.print("SHA-1 hash: \(KeyOutput.hex(certificate.sha1))")
            }
            if arguments.has("m") {
                for address in certificate.emailAddresses { session.console.print("e-mail address: \(address)") }
            }
            if arguments.has("p") {
                session.console.print(String(certificate.pem.dropLast()))
            } else if !arguments.has("Z") && !arguments.has("m") {
                session.console.print(CertificateLookup.block(certificate, in: location))
            }
        }
        return 0
    }

    /// `find-identity [-v] [keychain...]`: the identities (certificates whose private key is stored), with their
    /// SHA-1 hashes, as macOS lists them.
    static let findIdentity = Command(
        name: "find-identity",
        usage: """
            [-h] [-v] [-s string] [keychain...]
                -v  Show valid identities only (every stored identity: trust is not evaluated here)
                -s  Match identities whose certificate's name or e-mail contains string
            If no keychains are specified to search, the default search list is used.
            """,
        help: "Find an identity (certificate + private key).",
        options: OptionSpecification("vs:p:")
    ) { arguments, session throws(ToolFailure) in
        var identities: [KeychainIdentity] = []
        for location in try KeychainLocation.all(arguments.positionals) {
            let keychain = try session.keychains.keychain(at: location, context: "SecIdentitySearchCopyNext")
            do throws(KeychainError) {
                identities += try keychain.identities(named: arguments.value("s"))
            } catch {
                throw .keychain(error, "SecIdentitySearchCopyNext")
            }
        }
        session.console.print("  Matching identities")
        for (index, identity) in identities.enumerated() {
            let name = identity.certificate.subjectSummary ?? identity.certificate.label ?? ""
            session.console.print("  \(index + 1)) \(KeyOutput.hex(identity.certificate.sha1)) \"\(name)\"")
        }
        session.console.print("     \(identities.count) identities found")
        return 0
    }

    /// `delete-certificate [-c name] [-Z hash] [-t] [keychain...]`: deletes the one certificate the name or hash
    /// names (with `-t`, as macOS's `-t` also removes what the certificate was trusted with: its private key).
    static let deleteCertificate = Command(
        name: "delete-certificate",
        usage: """
            [-h] [-c name] [-Z hash] [-t] [keychain...]
                -c  Specify certificate to delete by its common name
                -Z  Specify certificate to delete by its SHA-256 (or SHA-1) hash value
                -t  Also delete the certificate's private key (its identity)
            If no keychains are specified, the default keychain is used.
            """,
        help: "Delete a certificate from a keychain.",
        options: OptionSpecification("c:Z:t")
    ) { arguments, session throws(ToolFailure) in
        try CertificateLookup.deleteOne(arguments, withKey: arguments.has("t"), session)
        return 0
    }

    /// `delete-identity [-c name] [-Z hash] [keychain...]`: deletes a certificate and its private key.
    static let deleteIdentity = Command(
        name: "delete-identity",
        usage: """
            [-h] [-c name] [-Z hash] [keychain...]
                -c  Specify certificate to delete by its common name
                -Z  Specify certificate to delete by its SHA-256 (or SHA-1) hash value
            The certificate and its private key are deleted.
            """,
        help: "Delete a certificate and its private key from a keychain.",
        options: OptionSpecification("c:Z:")
    ) { arguments, session throws(ToolFailure) in
        try CertificateLookup.deleteOne(arguments, withKey: true, session)
        return 0
    }
}

/// Finding certificates for the certificate verbs.
enum CertificateLookup {
    /// The certificates of the keychains the positional arguments name that match `-c`, `-e` and, for the verbs
    /// whose `-Z` takes a hash (`byHash`), that hash.
    static func matching(
        _ arguments: ParsedArguments, _ session: ToolSession, context: String, byHash: Bool = false
    ) throws(ToolFailure) -> [(certificate: KeychainCertificate, location: KeychainLocation)] {
        var found: [(certificate: KeychainCertificate, location: KeychainLocation)] = []
        for location in try KeychainLocation.all(arguments.positionals) {
            let keychain = try session.keychains.keychain(at: location, context: context)
            do throws(KeychainError) {
                for certificate in try keychain.certificates(named: arguments.value("c")) {
                    if let address = arguments.value("e"), !certificate.emailAddresses.contains(address) { continue }
                    if byHash, let hash = arguments.value("Z"), !matches(certificate, hash: hash) { continue }
                    found.append((certificate, location))
                }
            } catch {
                throw .keychain(error, context)
            }
        }
        return found
    }

    /// Deletes the one certificate `-c` or `-Z` names (and its private key when asked): none is errSecItemNotFound,
    /// several are errSecDuplicateItem naming how many, so a delete never picks one of several.
    static func deleteOne(_ arguments: ParsedArguments, withKey: Bool, _ session: ToolSession) throws(ToolFailure) {
        guard arguments.has("c") || arguments.has("Z") else {
            throw .usage("say which certificate: give -c name or -Z hash")
        }
        let found = try matching(arguments, session, context: "SecKeychainItemDelete", byHash: true)
        guard let (certificate, location) = found.first else {
            throw .failed(
                status: errSecItemNotFound,
                message:
                    "Unable to delete certificate matching \"\(arguments.value("c") ?? arguments.value("Z") ?? "")\"")
        }
        guard found.count == 1 else {
            throw .failed(
                status: errSecDuplicateItem,
                message: "\(found.count) certificates match; give -Z with the SHA-256 hash of the one to delete")
        }
        let keychain = try session.keychains.keychain(at: location, context: "SecKeychainItemDelete")
        do throws(KeychainError) {
            if withKey {
                for key in try keychain.keys() where key.isPrivate && key.applicationLabel == certificate.publicKeyHash
                {
                    try keychain.remove(key)
                }
            }
            try keychain.remove(certificate)
        } catch {
            throw .keychain(error, "SecKeychainItemDelete")
        }
    }

    /// Whether `hash` (hexadecimal, any case) is the certificate's SHA-256 or SHA-1.
    static func matches(_ certificate: KeychainCertificate, hash: String) -> Bool {
        let wanted = hash.uppercased()
        return wanted == KeyOutput.hex(certificate.sha256) || wanted == KeyOutput.hex(certificate.sha1)
    }

    /// The certificate as lines, as dump-keychain prints items.
    static func block(_ certificate: KeychainCertificate, in location: KeychainLocation) -> String {
        var lines = ["keychain: \"\(location.path)\"", "class: \"cert\"", "attributes:"]
        if let label = certificate.label { lines.append("    \"labl\"<blob>=\"\(label)\"") }
        if let summary = certificate.subjectSummary { lines.append("    \"subj\"<summary>=\"\(summary)\"") }
        lines.append("    \"slnr\"<blob>=0x\(KeyOutput.hex(certificate.serialNumber))")
        lines.append("    \"pkhh\"<blob>=0x\(KeyOutput.hex(certificate.publicKeyHash))")
        lines.append("    \"agrp\"<blob>=\"\(certificate.accessGroup ?? "")\"")
        return lines.joined(separator: "\n")
    }

    /// The certificate as a JSON object.
    static func json(_ certificate: KeychainCertificate) -> JSONValue {
        var object: [String: JSONValue] = [
            "class": .string("cert"), "der": .data(certificate.der),
            "sha256": .string(KeyOutput.hex(certificate.sha256)),
            "sha1": .string(KeyOutput.hex(certificate.sha1)),
            "emailAddresses": .array(certificate.emailAddresses.map { .string($0) }),
            "commonNames": .array(certificate.commonNames.map { .string($0) }),
        ]
        if let label = certificate.label { object["label"] = .string(label) }
        return .object(object)
    }
}
