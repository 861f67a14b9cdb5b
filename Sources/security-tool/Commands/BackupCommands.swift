import Foundation
import Keychain
import KeychainCore
import Security

#if canImport(Glibc)
    import Glibc
#endif

extension Command {
    /// `backup-keychain [-o file] [--passphrase-fd n] [keychain]`: one encrypted archive of the keychain's
    /// migratable items.
    static let backupKeychain = Command(
        name: "backup-keychain",
        usage: """
            [-o file] [--passphrase-fd n] [keychain]
                -o  Write the archive to file (- for standard output); the file appears only once complete
                --passphrase-fd n  Read the backup passphrase from file descriptor n (default: asked twice on the terminal)
            Every item but those that never leave this device (ThisDeviceOnly accessibilities, items with access
            control, private keys that are not extractable) is written, encrypted under the passphrase.
            """,
        help: "Write an encrypted backup of a keychain.",
        options: OptionSpecification("o:", long: [BackupOptions.passphraseDescriptor])
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        guard let target = arguments.value("o") ?? (isatty(STDOUT_FILENO) == 1 ? nil : "-") else {
            throw .usage("give -o file (or -o - for standard output): the archive is binary")
        }
        let passphrase = try BackupOptions.passphrase(arguments, session, confirming: true)
        let keychain = try session.keychains.keychain(at: location, context: "backup-keychain")
        let line = ProgressLine.onTerminal("backed up", unit: .items)
        let summary: BackupSummary
        do throws(KeychainError) {
            if target == "-" {
                summary = try keychain.backup(
                    to: FileHandle.standardOutput, passphrase: passphrase, progress: BackupOptions.progress(line)
                )
            } else {
                summary = try keychain.backup(
                    to: URL(fileURLWithPath: target), passphrase: passphrase,
                    progress: BackupOptions.progress(line))
            }
        } catch {
            throw .keychain(error, "backup-keychain")
        }
        line?.finish()
        let leftOut = summary.thisDeviceOnly + summary.boundToThisKeychain
        session.console.printError(
            "\(summary.itemCount) items backed up"
                + (leftOut == 0
                    ? "."
                    : "; \(leftOut) left on this device (\(summary.thisDeviceOnly) ThisDeviceOnly, "
                        + "\(summary.boundToThisKeychain) with access control or not extractable)."))
        return 0
    }

    /// `restore-keychain [--on-conflict keep|replace|newer] [--passphrase-fd n] file [keychain]`.
    static let restoreKeychain = Command(
        name: "restore-keychain",
        usage: """
            [--on-conflict keep|replace|newer] [--passphrase-fd n] file [keychain]
                --on-conflict policy  What to do with an archived item that is stored already: keep the stored one,
                                      replace it, or keep the newer (default: restore nothing and list them)
                --passphrase-fd n  Read the backup passphrase from file descriptor n (default: asked on the terminal)
            Every item is restored, or none: into an embedded keychain the archive streams into one transaction
            that commits only once its final message checks out; through keychaind it is checked whole first.
            """,
        help: "Restore an encrypted backup into a keychain.",
        options: OptionSpecification(
            "", long: [BackupOptions.passphraseDescriptor, .init(name: "on-conflict", takesValue: true)])
    ) { arguments, session throws(ToolFailure) in
        guard let file = arguments.positionals.first, arguments.positionals.count <= 2 else {
            throw .usage("give the archive, and at most one keychain")
        }
        let location = try KeychainLocation.single(Array(arguments.positionals.dropFirst()))
        let policy = try arguments.value(long: "on-conflict").map { (name) throws(ToolFailure) in
            guard let policy = RestoreConflictPolicy(rawValue: name) else {
                throw ToolFailure.usage("--on-conflict takes keep, replace or newer, not \"\(name)\"")
            }
            return policy
        }
        let input = try BackupOptions.open(file)
        let passphrase = try BackupOptions.passphrase(arguments, session, confirming: false)
        let keychain = try session.keychains.keychain(at: location, context: "restore-keychain")
        let line = ProgressLine.onTerminal("checked", unit: .items)
        let summary: RestoreSummary
        do throws(KeychainError) {
            summary = try keychain.restore(
                from: input, passphrase: passphrase, onConflict: policy, progress: BackupOptions.progress(line))
        } catch {
            throw .keychain(error, "restore-keychain \(file)")
        }
        line?.finish()
        session.console.printError(
            "\(summary.added) items restored, \(summary.replaced) replaced, \(summary.kept) kept as they were.")
        return 0
    }

    /// `verify-backup [--passphrase-fd n] file`: checks an archive whole without restoring it.
    static let verifyBackup = Command(
        name: "verify-backup",
        usage: """
            [--passphrase-fd n] file
                --passphrase-fd n  Read the backup passphrase from file descriptor n (default: asked on the terminal)
            """,
        help: "Check an encrypted backup without restoring it.",
        options: OptionSpecification("", long: [BackupOptions.passphraseDescriptor])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let file = arguments.positionals.first else {
            throw .usage("give the one archive to check")
        }
        let input = try BackupOptions.open(file)
        let passphrase = try BackupOptions.passphrase(arguments, session, confirming: false)
        do throws(KeychainError) {
            let contents = try Keychain.verifyBackup(from: input, passphrase: passphrase)
            session.console.print(
                "\(file): \(contents.itemCount) items, made \(UTCTime(date: contents.created).iso8601): verified")
        } catch {
            throw .keychain(error, "verify-backup \(file)")
        }
        return 0
    }
}

/// The options the backup verbs share.
enum BackupOptions {
    /// `--passphrase-fd n`.
    static let passphraseDescriptor = OptionSpecification.LongOption(name: "passphrase-fd", takesValue: true)

    /// The items counted on `line` (none when there is no terminal).
    static func progress(_ line: ProgressLine?) -> ((Int, Int) -> Void)? {
        guard let line else { return nil }
        return { done, total in line.update(Int64(done), of: Int64(total)) }
    }

    /// The archive to read, or errSecIO naming it.
    static func open(_ path: String) throws(ToolFailure) -> FileHandle {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .failed(status: errSecIO, message: "cannot read \(path)")
        }
        return handle
    }

    /// The backup passphrase: from `--passphrase-fd` (its bytes up to the end, one final newline dropped), else
    /// asked on the terminal (twice when `confirming`). An empty one is refused.
    static func passphrase(
        _ arguments: ParsedArguments, _ session: ToolSession, confirming: Bool
    ) throws(ToolFailure) -> Keychain.Passcode {
        var bytes: [UInt8]
        if let descriptor = arguments.value(long: "passphrase-fd") {
            guard let number = Int32(descriptor), number >= 0 else {
                throw .usage("--passphrase-fd takes a file descriptor number, not \"\(descriptor)\"")
            }
            bytes = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(number, &buffer, buffer.count)
                if count < 0 {
                    throw .failed(status: errSecIO, message: "cannot read file descriptor \(number)")
                }
                if count == 0 { break }
                bytes += buffer[..<count]
            }
            SecretReader.zero(&buffer)
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        } else if confirming {
            bytes = try session.secrets.newSecret(
                prompt: "Backup passphrase: ", retypePrompt: "Retype the backup passphrase: ")
        } else {
            bytes = try session.secrets.secret(prompt: "Backup passphrase: ")
        }
        defer { SecretReader.zero(&bytes) }
        guard !bytes.isEmpty else { throw .usage("the backup passphrase is empty") }
        return try SecretReader.passcode(of: bytes, "the backup passphrase")
    }
}
