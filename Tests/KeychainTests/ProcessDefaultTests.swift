import FileProtection
import Foundation
import KeychainClient
import KeychainCore
import TestSupport
import Testing

@testable import Keychain

/// One answer to "which keychain is this process using" (issue 22, §3): the process's default is decided once, and
/// every API that names none takes it; a test overrides it for its task alone.
@Suite("The process's one default keychain")
struct ProcessDefaultTests {
    @Test("Keychain and FileProtection, naming no keychain, use the process default a task sets")
    func everyAPIUsesTheOneDefault() throws {
        let home = try TemporaryDirectory()
        let directory = home.keychain
        try KeychainStorage.$processDefaultOverride.withValue(.directory(directory)) {
            #expect(KeychainStorage.processDefault == .directory(directory))
            let keychain = Keychain(service: "default")
            try keychain.set("value", for: "key")
            #expect(try Keychain(service: "default", directory: directory).get("key") == "value")
            let files = try ProtectedFiles()
            let path = home.url.appendingPathComponent("note").path
            try files.write(Data("protected".utf8), to: URL(fileURLWithPath: path), protection: .complete)
            #expect(try files.contents(of: URL(fileURLWithPath: path)) == Data("protected".utf8))
        }
        #expect(KeychainStorage.processDefault != .directory(directory), "the override ends with its task scope")
    }

    @Test("The default, once decided, does not change for the process")
    func decidedOnce() {
        let first = KeychainStorage.processDefault
        #expect(KeychainStorage.processDefault == first)
    }
}
