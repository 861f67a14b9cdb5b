import Foundation
import Keychain

/// A temporary directory for one test, removed when released: `KEYCHAIN_HOME` (the default keychain) is
/// `home` inside it, so no test touches a real keychain.
final class TestHome: Sendable {
    /// The directory.
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("security-cli-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The default keychain's directory.
    var defaultKeychain: URL { url.appendingPathComponent("home", isDirectory: true) }

    /// A keychain path inside the directory.
    func keychain(_ name: String) -> String { url.appendingPathComponent(name, isDirectory: true).path }

    /// The tool, run with this directory's default keychain (and keeping the directory while it is used, since the
    /// tool may create the default keychain in it).
    var tool: SecurityProcess { SecurityProcess(testHome: self) }

    /// Creates a keychain with a passcode through the `Keychain` API, stretched at the cheapest cost so tests stay
    /// fast (the tool stretches with the standard cost, about 0.45 s a time), and with the given generic passwords.
    func makeLockedKeychain(
        _ name: String, passcode: String, passwords: [(account: String, service: String, secret: String)] = []
    ) throws -> String {
        let path = keychain(name)
        let keychain = Keychain(
            service: "tests", directory: URL(fileURLWithPath: path),
            identity: try ApplicationIdentity(applicationIdentifier: "tests"), passcodeHashing: .minimum)
        try keychain.setPasscode(passcode)
        for password in passwords {
            try keychain.add(
                GenericPassword(account: password.account, service: password.service),
                secret: Data(password.secret.utf8))
        }
        return path
    }
}
