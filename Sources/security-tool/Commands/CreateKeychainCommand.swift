import Foundation
import Keychain
import Security

extension Command {
    /// `create-keychain [-P] [-p password] [keychains...]`: new keychains, each with the passcode given (none when
    /// it is empty). Without a keychain argument it creates the default keychain, so that one can be given a
    /// passcode before anything is stored in it.
    static let createKeychain = Command(
        name: "create-keychain",
        usage: """
            [-P] [-p password] [keychains...]
                -p  Use "password" as the password for the keychains being created
                -P  Prompt the user for a password (the default: on the terminal, or from standard input)
            Use of the -p option is insecure. An empty password creates a keychain without one.
            """,
        help: "Create keychains.", options: OptionSpecification("Pp:", secrets: "p")
    ) { arguments, session throws(ToolFailure) in
        let locations = try KeychainLocation.all(arguments.positionals)
        for location in locations { try checkFree(location) }
        if Set(locations.map(\.path)).count < locations.count {
            throw .usage("a keychain is named twice: \(arguments.positionals.joined(separator: " "))")
        }
        var password = try session.secrets.given(arguments.value("p")) { secrets throws(ToolFailure) in
            try secrets.newSecret(
                prompt: "password for new keychain: ", retypePrompt: "retype password for new keychain: ")
        }
        defer { SecretReader.zero(&password) }
        let passcode = try SecretReader.passcode(of: password, "password for the new keychain")
        for location in locations {
            try create(location, passcode: passcode, session)
        }
        return 0
    }

    /// Refuses a location that holds a keychain already (`errSecDuplicateKeychain`, exit status 48; keychaind's
    /// default keychain always does: the daemon owns it) or anything else that is not an empty directory.
    private static func checkFree(_ location: KeychainLocation) throws(ToolFailure) {
        let context = "SecKeychainCreate \(location.name(or: "<default>"))"
        if let daemon = location.daemon {
            throw .keychain(
                KeychainError(
                    status: errSecDuplicateKeychain,
                    message:
                        "the default keychain is kept by \(daemon.description), which creates it itself; give it a passcode with set-keychain-password, or name a keychain path to create an embedded one"
                ), context)
        }
        if Keychain.exists(in: location.directory) {
            throw .keychain(
                KeychainError(status: errSecDuplicateKeychain, message: "a keychain exists in \(location.path)"),
                context)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory) else { return }
        let contents = isDirectory.boolValue ? try? FileManager.default.contentsOfDirectory(atPath: location.path) : nil
        guard contents?.isEmpty == true else {
            throw .failed(
                status: errSecParam,
                message: "\(context): \(location.path) exists and is not an empty directory: name a new one")
        }
    }

    /// Creates the keychain and sets its passcode; on failure removes what was created.
    private static func create(
        _ location: KeychainLocation, passcode: Keychain.Passcode, _ session: ToolSession
    ) throws(ToolFailure) {
        let context = "SecKeychainCreate \(location.name(or: "<default>"))"
        if location.directory.deletingLastPathComponent().path == KeychainLocation.namedKeychains.path {
            try makePrivateDirectories(Keychain.defaultDirectory, KeychainLocation.namedKeychains, context: context)
        }
        // The directories the engine will make for it: a keychain that fails half-way takes them back.
        var missing: [URL] = []
        var ancestor = location.directory.deletingLastPathComponent()
        while ancestor.path != "/", !FileManager.default.fileExists(atPath: ancestor.path) {
            missing.append(ancestor)
            ancestor = ancestor.deletingLastPathComponent()
        }
        // Kept open, so a `security -i` session goes on with the new keychain unlocked, as macOS leaves it.
        if let error = setUp(try session.keychains.creating(location, context: context), passcode: passcode) {
            session.keychains.close(location)
            try? Keychain.delete(in: location.directory)
            // Innermost first, each only while empty: nothing of the failed keychain stays behind.
            for directory in missing where rmdir(directory.path) != 0 { break }
            throw .keychain(error, context)
        }
    }

    /// Creates the directories that hold named keychains when they are missing, 0700 as every keychain directory
    /// is (the engine creates a keychain's own directory, but would leave these to the umask).
    private static func makePrivateDirectories(_ directories: URL..., context: String) throws(ToolFailure) {
        for directory in directories {
            do {
                try FileManager.default.createDirectory(
                    at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .failed(status: errSecIO, message: "\(context): cannot create \(directory.path): \(error)")
            }
            guard mkdir(directory.path, 0o700) == 0 || errno == EEXIST else {
                throw .failed(
                    status: errSecIO,
                    message: "\(context): cannot create \(directory.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Sets a new keychain's passcode; returns what failed, if anything.
    private static func setUp(_ keychain: Keychain, passcode: Keychain.Passcode) -> KeychainError? {
        do throws(KeychainError) {
            if !passcode.isEmpty {
                try keychain.setPasscode(passcode)
            }
            return nil
        } catch {
            return error
        }
    }
}
