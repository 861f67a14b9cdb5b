import Foundation
import TestSupport
import Testing

@testable import Keychain

@Suite("Whole keychains on disk")
struct KeychainFilesTests {
    @Test("The default directory follows $KEYCHAIN_HOME")
    func defaultDirectory() throws {
        let home = try TemporaryDirectory()
        Keychain.$environmentOverride.withValue(["KEYCHAIN_HOME": home.keychain.path]) {
            #expect(Keychain.defaultDirectory.path == home.keychain.path)
        }
    }

    @Test("A keychain exists once opened, and deleting it removes its files and its directory")
    func existsAndDelete() throws {
        let home = try TemporaryDirectory()
        #expect(!Keychain.exists(in: home.keychain))
        try {
            let keychain = Keychain(
                service: "api", directory: home.keychain, identity: try appIdentity(), passcodeHashing: .minimum)
            try keychain.set("s3cret", for: "alice")
        }()
        #expect(Keychain.exists(in: home.keychain))
        try Keychain.delete(in: home.keychain)
        #expect(!FileManager.default.fileExists(atPath: home.keychain.path))
        #expect(!Keychain.exists(in: home.keychain))
    }

    @Test("Deleting leaves files that are not the keychain's, and the directory that holds them")
    func deleteKeepsOtherFiles() throws {
        let home = try TemporaryDirectory()
        try {
            try Keychain(service: "api", directory: home.keychain, identity: try appIdentity()).set("v", for: "k")
        }()
        let notes = home.keychain.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: notes)
        try Keychain.delete(in: home.keychain)
        #expect(try Data(contentsOf: notes) == Data("mine".utf8))
        let left = try FileManager.default.contentsOfDirectory(atPath: home.keychain.path)
        #expect(left == ["notes.txt"])
    }

    @Test("A directory that is not a keychain is not deleted: errSecNoSuchKeychain")
    func deleteRefusesOtherDirectories() throws {
        let home = try TemporaryDirectory()
        let other = home.url.appendingPathComponent("documents", isDirectory: true)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let file = other.appendingPathComponent("keychain.db")
        try Data("not a database".utf8).write(to: file)
        #expect(!Keychain.exists(in: other))
        let error = keychainError { try Keychain.delete(in: other) }
        #expect(error?.status == -25294)
        #expect(error?.message.contains(other.path) == true)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(keychainError { try Keychain.delete(in: home.url.appendingPathComponent("missing")) }?.status == -25294)
    }
}
