import Foundation
import KeychainCore
import Security
import TestSupport
import Testing

/// The caller most tests act as.
let testApp = Caller(applicationIdentifier: "TEAM.com.example.app", accessGroups: ["TEAM.com.example.app"])

/// A keychain of a test's own (in a temporary directory, at the cheapest passcode cost) that the SecItem functions
/// use inside ``run(_:)``.
struct TestSecItemKeychain {
    let directory: TemporaryDirectory
    let engine: Engine
    let caller: Caller

    init(caller: Caller = testApp) throws {
        directory = try TemporaryDirectory()
        engine = try Self.open(directory)
        self.caller = caller
    }

    /// Runs SecItem calls against this keychain as `caller`.
    func run<Result>(as caller: Caller? = nil, _ body: () throws -> Result) rethrows -> Result {
        try SecItemKeychain(backend: engine, caller: caller ?? self.caller).run(body)
    }

    /// The same keychain opened again, as a restarted process would.
    func reopened() throws -> Engine {
        try Self.open(directory)
    }

    static func open(_ directory: TemporaryDirectory) throws -> Engine {
        try Engine(
            storage: .directory(directory.url.appendingPathComponent("keychain")),
            options: EngineOptions(passcodeCost: .minimum))
    }
}

/// The outcome of one SecItem call: its status, its result and why it failed.
struct Outcome {
    var status: OSStatus
    var result: CFTypeRef?
    var message: String?

    init(_ status: OSStatus, _ result: CFTypeRef? = nil) {
        self.status = status
        self.result = result
        self.message = SecCopyLastErrorMessage().map { $0 as String }
    }
}

/// `SecItemAdd` with a result.
func add(_ attributes: [String: Any]) -> Outcome {
    var result: CFTypeRef?
    let status = SecItemAdd(attributes as CFDictionary, &result)
    return Outcome(status, result)
}

/// `SecItemCopyMatching`, starting from a non-nil result to show it is reset.
func copy(_ query: [String: Any]) -> Outcome {
    var result: CFTypeRef? = NSString(string: "untouched")
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return Outcome(status, result)
}

/// `SecItemUpdate`.
func update(_ query: [String: Any], _ changes: [String: Any]) -> Outcome {
    Outcome(SecItemUpdate(query as CFDictionary, changes as CFDictionary))
}

/// `SecItemDelete`.
func delete(_ query: [String: Any]) -> Outcome {
    Outcome(SecItemDelete(query as CFDictionary))
}

/// A generic password's dictionary.
func password(_ account: String, service: String = "svc", _ extra: [String: Any] = [:]) -> [String: Any] {
    [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
        kSecAttrService as String: service,
    ].merging(extra) { _, new in new }
}

/// The secret of a generic password, as text, or `nil` when it is not found.
func secret(_ account: String, service: String = "svc", _ extra: [String: Any] = [:]) -> String? {
    let outcome = copy(password(account, service: service, [kSecReturnData as String: true].merging(extra) { $1 }))
    guard outcome.status == errSecSuccess, let data = outcome.result as? Data else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// UTF-8 bytes.
func bytes(_ text: String) -> Data { Data(text.utf8) }
