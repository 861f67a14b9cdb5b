import Foundation
import TestSupport
import Testing

/// The Secret Service's clients in Python: Debian's `python3-keyring`, `python3-secretstorage` and `python3-pytest`
/// (what `scripts/bootstrap` installs), and the secretstorage project's own `tests/` (bootstrap takes them from its
/// sdist on PyPI into ``secretStorageTests``).
enum PythonClients {
    static let python = "/usr/bin/python3"

    /// Whether Debian's python imports every one of `modules`.
    static func imports(_ modules: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", modules.map { "import \($0)" }.joined(separator: "; ")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// secretstorage's own test suite (`SECRETSTORAGE_TESTS`, else where bootstrap puts it).
    static var secretStorageTests: String {
        if let given = ProcessInfo.processInfo.environment["SECRETSTORAGE_TESTS"] { return given }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        return home + "/.cache/swift-keychain/secretstorage-3.3.3/tests"
    }

    static let bus = FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
    static let keyring = bus && imports(["keyring.testing.backend", "keyring.backends.SecretService", "pytest"])
    static let secretStorage = bus && imports(["secretstorage", "jeepney"])
    static let secretStorageSuite =
        secretStorage && FileManager.default.fileExists(atPath: secretStorageTests + "/test_item.py")
}

extension SecretServiceBus {
    /// Runs a Python script of the test's with Debian's python on the bus.
    func python(_ script: String, _ arguments: [String] = []) throws -> (status: Int32, output: String, errors: String)
    {
        let file = directory.file("script-\(UUID().uuidString).py")
        try Data(script.utf8).write(to: file)
        return try run(PythonClients.python, [file.path] + arguments, environment: ["PYTHONDONTWRITEBYTECODE": "1"])
    }
}

/// Other projects' own test suites, run through their Secret Service clients against keychain-secret-service.
@Suite("Secret Service: python keyring's and secretstorage's own tests against keychain-secret-service")
struct SecretServiceSuiteTests {
    /// keyring's `tests/backends/test_SecretService.py` (its collection `session`, which gnome-keyring always has and
    /// this driver creates through `CreateCollection`), and the same conformance tests on the default collection.
    static let keyringDriver = """
        from contextlib import closing
        import secretstorage
        from keyring.testing.backend import BackendBasicTests
        from keyring.backends import SecretService

        def setup_module():
            with closing(secretstorage.dbus_init()) as bus:
                labels = [c.get_label() for c in secretstorage.get_all_collections(bus)]
                if 'session' not in labels:
                    secretstorage.create_collection(bus, 'session')

        class TestSecretServiceKeyring(BackendBasicTests):
            __test__ = True
            def init_keyring(self):
                keyring = SecretService.Keyring()
                keyring.preferred_collection = '/org/freedesktop/secrets/collection/session'
                return keyring

        class TestSecretServiceKeyringDefaultCollection(BackendBasicTests):
            __test__ = True
            def init_keyring(self):
                return SecretService.Keyring()
        """

    @Test(
        "python keyring's backend conformance tests (BackendBasicTests) pass through its SecretService backend",
        .enabled(
            if: PythonClients.keyring,
            "python3-keyring, python3-secretstorage or python3-pytest is not installed (scripts/bootstrap installs them)"
        ))
    func keyringConformance() throws {
        let bus = try SecretServiceBus()
        let driver = bus.directory.file("test_keychain_secret_service.py")
        try Data(Self.keyringDriver.utf8).write(to: driver)
        let result = try bus.run(
            PythonClients.python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE", driver.path],
            environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        let passed = Self.count(#"(\d+) passed"#, in: result.output)
        // 12 conformance tests in keyring 23.9 (Debian 12), on each of the two collections.
        #expect(passed >= 24, "\(result.output)")
        #expect(!result.output.contains("failed") && !result.output.contains("error"), "\(result.output)")
    }

    @Test(
        "The secretstorage project's own tests/ pass against the service (the mock server's tests skip, as upstream)",
        .enabled(
            if: PythonClients.secretStorageSuite,
            "python3-secretstorage or secretstorage's tests/ (SECRETSTORAGE_TESTS, else ~/.cache/swift-keychain) is missing: scripts/bootstrap installs them"
        ))
    func secretStorageSuite() throws {
        let bus = try SecretServiceBus()
        let tests = PythonClients.secretStorageTests
        // Discovered from a copy, so the installed secretstorage (Debian's) is the one imported and nothing is
        // written beside the shared suite.
        let copy = bus.directory.file("secretstorage_tests")
        try FileManager.default.copyItem(atPath: tests, toPath: copy.path)
        let result = try bus.run(
            PythonClients.python, ["-m", "unittest", "discover", "-v", "-s", copy.path, "-t", bus.directory.url.path],
            environment: ["PYTHONDONTWRITEBYTECODE": "1"])
        let report = result.output + result.errors
        #expect(result.status == 0, "\(report)")
        let ran = Self.count(#"Ran (\d+) test"#, in: report)
        // secretstorage 3.3.3: 26 tests, 6 of them for its mock server only (skipped against a real service).
        #expect(ran >= 26, "\(report)")
        #expect(report.contains("OK"), "\(report)")
        #expect(!report.contains("FAIL") && !report.contains("ERROR"), "\(report)")
    }

    /// The number the first match of `pattern`'s group captures, or 0.
    static func count(_ pattern: String, in text: String) -> Int {
        guard let expression = try? NSRegularExpression(pattern: pattern),
            let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return 0 }
        return Int(text[range]) ?? 0
    }
}
