import Foundation
import Keychain
import Security

extension Command {
    /// `import inputfile [-k keychain] [-f format] [-P passphrase] [-x]`: a PKCS#12 file's identity (its private
    /// key not extractable with `-x`), or the certificates of a PEM or DER file.
    static let importItems = Command(
        name: "import",
        usage: """
            inputfile [-k keychain] [-t type] [-f format] [-P passphrase] [-x]
                -k  Target keychain to import into
                -t  Type = pub|priv|cert|agg (only cert and agg, a PKCS#12 file, are read)
                -f  Format = pkcs12|pemseq|x509 (by default, from the file's content)
                -P  Specify wrapping passphrase immediately (default is a terminal prompt)
                -x  Specify that private keys are non-extractable after being imported
            """,
        help: "Import items into a keychain.",
        options: OptionSpecification("k:t:f:P:xwaAT:", secrets: "P", repeatable: "T")
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw .usage("give the one file to import")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .failed(status: errSecIO, message: "Error reading infile \(path)")
        }
        let location = try arguments.value("k").map(KeychainLocation.named) ?? .standard
        let keychain = try session.keychains.keychain(at: location, context: "SecKeychainItemImport")
        let format = arguments.value("f") ?? (ImportFormat.looksLikeCertificates(data) ? "pemseq" : "pkcs12")
        switch format {
        case "pkcs12", "p12", "pfx":
            var passphrase = try session.secrets.given(arguments.value("P")) { (reader) throws(ToolFailure) in
                try reader.secret(prompt: "Enter the passphrase of \(path): ")
            }
            defer { SecretReader.zero(&passphrase) }
            do throws(KeychainError) {
                _ = try keychain.importPKCS12(
                    data, passphrase: String(decoding: passphrase, as: UTF8.self), isExtractable: !arguments.has("x"))
            } catch {
                throw .keychain(error, "SecKeychainItemImport")
            }
            session.console.print("1 identity imported.")
        case "pemseq", "x509", "pem", "der":
            let certificates = ImportFormat.certificates(in: data)
            guard !certificates.isEmpty else {
                throw .failed(status: errSecUnknownFormat, message: "\(path) holds no certificate in PEM or DER")
            }
            var imported = 0
            for der in certificates {
                do throws(KeychainError) {
                    try keychain.add(certificate: der)
                    imported += 1
                } catch  where error.status == errSecDuplicateItem {
                    continue
                } catch {
                    throw .keychain(error, "SecKeychainItemImport")
                }
            }
            session.console.print("\(imported) certificate\(imported == 1 ? "" : "s") imported.")
        default:
            throw .usage("the format \"\(format)\" is not pkcs12, pemseq or x509")
        }
        return 0
    }

    /// `export [-k keychain] [-t type] [-f format] [-o outfile]`: certificates (`-t certs`) or public keys
    /// (`-t pubKeys`) as a PEM sequence. Private keys are not exported.
    static let exportItems = Command(
        name: "export",
        usage: """
            [-k keychain] [-t type] [-f format] [-o outfile]
                -k  Keychain to export items from
                -t  Type = certs|pubKeys (private keys and identities stay in the keychain)
                -f  Format = pemseq|x509 (default pemseq)
                -o  Write the output to outfile (default: standard output)
            """,
        help: "Export items from a keychain.",
        options: OptionSpecification("k:t:f:o:wpP:")
    ) { arguments, session throws(ToolFailure) in
        let location = try arguments.value("k").map(KeychainLocation.named) ?? .standard
        let keychain = try session.keychains.keychain(at: location, context: "SecKeychainItemExport")
        if let format = arguments.value("f"), !["pemseq", "x509", "pem"].contains(format) {
            throw .usage("the format \"\(format)\" cannot be written: only pemseq (PEM) is")
        }
        var output = ""
        do throws(KeychainError) {
            switch arguments.value("t") ?? "certs" {
            case "certs": output = try keychain.certificates().map(\.pem).joined()
            case "pubKeys":
                output = try keychain.keys().filter { !$0.isPrivate }.map { (key) throws(KeychainError) in
                    try key.publicKeyPEM()
                }.joined()
            case let type:
                throw KeychainError(
                    status: errSecParam,
                    message:
                        "items of type \"\(type)\" are not exported: private keys and identities stay in the keychain")
            }
        } catch {
            throw .keychain(error, "SecKeychainItemExport")
        }
        if let file = arguments.value("o") {
            guard FileManager.default.createFile(atPath: file, contents: Data(output.utf8)) else {
                throw .failed(status: errSecIO, message: "cannot write \(file)")
            }
        } else {
            session.console.print(String(output.dropLast()))
        }
        return 0
    }
}

/// The file formats `import` and `export` read and write.
enum ImportFormat {
    /// Whether the data is PEM certificates or one DER certificate (a PKCS#12 file is neither).
    static func looksLikeCertificates(_ data: Data) -> Bool {
        !certificates(in: data).isEmpty
    }

    /// The DER of each `CERTIFICATE` block of PEM text, or the data itself when it is one DER certificate.
    static func certificates(in data: Data) -> [Data] {
        let text = String(decoding: data, as: UTF8.self)
        guard text.contains("-----BEGIN CERTIFICATE-----") else {
            return SecCertificateCreateWithData(nil, data as CFData) == nil ? [] : [data]
        }
        var found: [Data] = []
        for block in text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst() {
            guard let end = block.range(of: "-----END CERTIFICATE-----") else { continue }
            let body = block[..<end.lowerBound].filter { !$0.isWhitespace }
            if let der = Data(base64Encoded: String(body)) { found.append(der) }
        }
        return found
    }
}
