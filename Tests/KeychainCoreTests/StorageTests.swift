import Foundation
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Storage at rest")
struct StorageTests {
    private func files(of keychain: TestKeychain) -> [URL] {
        ["keychain.db", "keychain.db-wal", "keychain.db-shm", "device.key"].map {
            keychain.directory.keychain.appendingPathComponent($0)
        }
    }

    private func rawDatabase(_ keychain: TestKeychain) throws -> Database {
        try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
    }

    /// Whether `needle` occurs in any of the files.
    private func occurs(_ needle: String, in urls: [URL]) -> URL? {
        let bytes = Data(needle.utf8)
        return urls.first { url in
            guard let contents = FileManager.default.contents(atPath: url.path) else { return false }
            return contents.range(of: bytes) != nil
        }
    }

    @Test("No secret, account, service or label reaches the disk in clear")
    func noPlaintextOnDisk() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("passcode-1234", current: nil)
        var needles: [String] = ["passcode-1234"]
        for index in 0..<40 {
            let secret = "secret-\(UUID().uuidString)"
            let account = "account-\(index)-\(UUID().uuidString.prefix(8))"
            let service = "service-\(UUID().uuidString.prefix(12))"
            let label = "label-\(UUID().uuidString.prefix(12))"
            let comment = "comment-\(UUID().uuidString.prefix(12))"
            try keychain.engine.addPassword(
                account, secret, service: service, [.label: .string(label), .comment: .string(comment)])
            needles += [secret, account, service, label, comment]
        }
        let server = "server-\(UUID().uuidString.prefix(12)).example"
        try keychain.engine.add(
            NewItem(
                itemClass: .internetPassword, attributes: [.server: .string(server), .path: .string("/p-\(server)")],
                data: Data("inet-secret-\(server)".utf8)), for: app)
        needles += [server, "inet-secret-\(server)", "TEAM.com.example.app"]
        // Update and delete some, so old versions pass through the WAL too.
        _ = try keychain.engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: [.account: .string(needles[2])]),
            with: ItemChanges(data: Data("rotated-\(needles[1])".utf8)), for: app)
        needles.append("rotated-\(needles[1])")

        let urls = files(of: keychain)
        for needle in needles { #expect(occurs(needle, in: urls) == nil, "\(needle) found in clear") }
        try keychain.engine.checkpoint()
        for needle in needles { #expect(occurs(needle, in: urls) == nil, "\(needle) found in clear after checkpoint") }
        // The scan can see what is there: the schema's own names are in the file.
        #expect(occurs("wrapped_key", in: urls) != nil)
    }

    @Test("Files are 0600 in a 0700 directory")
    func fileModes() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        func mode(_ url: URL) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(keychain.directory.keychain) == 0o700)
        for url in files(of: keychain) where FileManager.default.fileExists(atPath: url.path) {
            #expect(try mode(url) == 0o600, "\(url.lastPathComponent)")
        }
    }

    /// Reads an item whole: attributes and data.
    private func read(_ engine: Engine, _ account: String) throws {
        _ = try engine.copyMatching(
            ItemQuery(itemClass: .genericPassword, attributes: genp(account), returning: [.data, .attributes]), for: app
        )
    }

    @Test("A flipped byte in any sealed column is a decode error for that item only")
    func tamperFlip() throws {
        let keychain = try TestKeychain()
        for column in ["wrapped_key", "metadata", "secret"] {
            let victim = try keychain.engine.addPassword("victim-\(column)", "v")
            try keychain.engine.addPassword("bystander-\(column)", "b")
            let database = try rawDatabase(keychain)
            let uuid = victim.persistentReference.uuidBytes
            var blob = try #require(
                try database.first("SELECT \(column) FROM items WHERE uuid = ?", [.blob(uuid)]) { $0.blob(0) } ?? nil)
            blob[blob.count / 2] ^= 0x20
            try database.run("UPDATE items SET \(column) = ? WHERE uuid = ?", [.blob(blob), .blob(uuid)])
            #expect(status { try read(keychain.engine, "victim-\(column)") } == .decode, "\(column)")
            #expect(try keychain.engine.password("bystander-\(column)") == "b")
            // An enumeration that decrypts what was damaged skips the item, as Apple's does.
            let all = try keychain.engine.copyMatching(
                ItemQuery(itemClass: .genericPassword, limit: .all, returning: .data), for: app)
            #expect(!all.contains { $0.persistentReference == victim.persistentReference })
            // The damaged item can still be deleted by its persistent reference.
            #expect(
                try keychain.engine.delete(
                    ItemQuery(itemClass: nil, persistentReference: victim.persistentReference), for: app) == 1)
        }
    }

    @Test("Clear columns are bound too: changing class, accessibility or sync breaks the item")
    func tamperClearColumns() throws {
        let keychain = try TestKeychain()
        let victim = try keychain.engine.addPassword("victim", "v", [.accessible: .string("ak")])
        let database = try rawDatabase(keychain)
        let uuid = victim.persistentReference.uuidBytes
        try database.run("UPDATE items SET pdmn = 'dk' WHERE uuid = ?", [.blob(uuid)])
        #expect(
            status {
                _ = try keychain.engine.copyMatching(
                    ItemQuery(itemClass: .genericPassword, attributes: [.accessible: .string("dk")]), for: app)
            }
                == .decode)
        try database.run("UPDATE items SET pdmn = 'ak', sync = 1 WHERE uuid = ?", [.blob(uuid)])
        #expect(
            status {
                _ = try keychain.engine.copyMatching(
                    ItemQuery(itemClass: .genericPassword, synchronizable: .any), for: app)
            } == .decode)
    }

    @Test("Sealed blobs swapped between two rows open as decode errors, never as the other item")
    func tamperSwap() throws {
        let keychain = try TestKeychain()
        let first = try keychain.engine.addPassword("first", "one")
        let second = try keychain.engine.addPassword("second", "two")
        try keychain.engine.addPassword("third", "three")
        let database = try rawDatabase(keychain)
        for column in ["secret", "metadata", "wrapped_key"] {
            let a = try #require(
                try database.first(
                    "SELECT \(column) FROM items WHERE uuid = ?", [.blob(first.persistentReference.uuidBytes)]
                ) { $0.blob(0) } ?? nil)
            let b = try #require(
                try database.first(
                    "SELECT \(column) FROM items WHERE uuid = ?", [.blob(second.persistentReference.uuidBytes)]
                ) { $0.blob(0) } ?? nil)
            try database.run(
                "UPDATE items SET \(column) = ? WHERE uuid = ?", [.blob(b), .blob(first.persistentReference.uuidBytes)])
            try database.run(
                "UPDATE items SET \(column) = ? WHERE uuid = ?",
                [.blob(a), .blob(second.persistentReference.uuidBytes)])
            #expect(status { try read(keychain.engine, "first") } == .decode, "\(column)")
            #expect(status { try read(keychain.engine, "second") } == .decode, "\(column)")
            #expect(try keychain.engine.password("third") == "three")
            // Swap back for the next column.
            try database.run(
                "UPDATE items SET \(column) = ? WHERE uuid = ?", [.blob(a), .blob(first.persistentReference.uuidBytes)])
            try database.run(
                "UPDATE items SET \(column) = ? WHERE uuid = ?",
                [.blob(b), .blob(second.persistentReference.uuidBytes)])
            #expect(try keychain.engine.password("first") == "one")
        }
    }

    @Test("Another device key cannot open the keychain; a damaged or exposed one is refused")
    func deviceKey() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        let keyURL = keychain.directory.keychain.appendingPathComponent("device.key")
        let original = try Data(contentsOf: keyURL)

        var other = original
        other[other.count - 1] ^= 0xFF
        try other.write(to: keyURL)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyURL.path)
        #expect(status { _ = try keychain.reopen() } == .invalidKeychain)

        try original.prefix(10).write(to: keyURL)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyURL.path)
        #expect(status { _ = try keychain.reopen() } == .invalidKeychain)

        try original.write(to: keyURL)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyURL.path)
        #expect(status { _ = try keychain.reopen() } == .invalidKeychain)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyURL.path)
        #expect(try keychain.reopen().password("a") == "1")
    }

    @Test("The schema is versioned; a newer (or damaged) version is refused as errSecDecode, not migrated over")
    func schemaVersion() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        let database = try rawDatabase(keychain)
        #expect(try database.first("PRAGMA user_version") { $0.integer(0) } == Int64(Schema.migrations.count))
        #expect(try database.first("PRAGMA journal_mode") { $0.text(0) } == "wal")
        for version in [99, -16_777_212, 0, 2, Schema.migrations.count - 1] {
            try database.execute("PRAGMA user_version = \(version)")
            #expect(status { _ = try keychain.reopen() } == .decode, "version \(version)")
        }
        try database.execute("PRAGMA user_version = \(Schema.migrations.count)")
        #expect(try keychain.reopen().password("a") == "1", "nothing was migrated over")
    }

    @Test("A keychain of the previous schema, with acknowledged changes, migrates in place and keeps its items")
    func previousSchemaMigrates() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("a", "1")
        try keychain.engine.addPassword("b", "2")
        // The previous build's schema: with the group index the last migration drops, its version one lower. The
        // keychain's high-water mark says changes were acknowledged (found by a fixture of an earlier build: any
        // migration was taken for a database that had lost its change log, and the keychain was refused).
        let database = try rawDatabase(keychain)
        try database.execute("CREATE INDEX items_group ON items(agrp)")
        try database.execute("PRAGMA user_version = \(Schema.migrations.count - 1)")
        let reopened = try keychain.reopen()
        #expect(try reopened.password("a") == "1" && reopened.password("b") == "2")
        #expect(try database.first("PRAGMA user_version") { $0.integer(0) } == Int64(Schema.migrations.count))
        let index = try database.first("SELECT 1 FROM sqlite_master WHERE name = 'items_group'") { _ in true }
        #expect(index == nil)
        #expect(try reopened.verify().isSound)
    }

    @Test("A path that is a file is not a keychain")
    func notADirectory() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        #expect(status { _ = try Engine(storage: .directory(file)) } == .invalidKeychain)
    }
}
