import FileProtection
import Foundation
import Keychain

/// Protected files on a keychain, as the file verbs use them: the keychain opened through the session (so its lock
/// state and a passcode prompt are the session's), and the files on the same engine (`ProtectedFiles(directory:)`
/// shares the process's engine for that directory; keychaind's keychain shares the process's client of the daemon).
struct ProtectedFileAccess {
    let keychain: Keychain
    let location: KeychainLocation
    let files: ProtectedFiles
    let session: ToolSession

    /// The keychain `-k` names (the default one without `-k`) and its protected files.
    init(_ arguments: ParsedArguments, _ session: ToolSession, context: String) throws(ToolFailure) {
        location = try arguments.value("k").map(KeychainLocation.named) ?? .standard
        keychain = try session.keychains.keychain(at: location, context: context)
        do throws(KeychainError) {
            _ = try keychain.keybagState()  // opens the keychain's engine, which the files then share
        } catch {
            throw .keychain(error, context)
        }
        do throws(FileProtectionError) {
            if let daemon = location.daemon {
                files = ProtectedFiles(backend: daemon.client)
            } else {
                files = try ProtectedFiles(directory: location.directory)
            }
        } catch {
            throw .failed(status: error.status, message: "\(context): \(error.message)")
        }
        self.session = session
    }

    /// Runs a file operation; when the lock withholds the class it needs, asks for the passcode on the terminal,
    /// unlocks and runs it once more (without a terminal: exit status 36, saying how to unlock).
    func run<Result>(_ context: String, _ body: () throws(FileProtectionError) -> Result) throws(ToolFailure) -> Result
    {
        do throws(KeychainError) {
            return try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) -> Result in
                do throws(FileProtectionError) {
                    return try body()
                } catch {
                    throw KeychainError(status: error.status, message: error.message)
                }
            }
        } catch {
            throw .keychain(error, context)
        }
    }
}
