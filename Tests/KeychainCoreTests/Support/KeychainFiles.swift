import Foundation
import TestSupport

@testable import KeychainCore

/// Direct access to a keychain's files, for tests that damage or roll them back as a disk, a crash or an attacker
/// would.
struct KeychainFiles {
    let directory: URL

    var database: URL { directory.appendingPathComponent("keychain.db") }
    var wal: URL { directory.appendingPathComponent("keychain.db-wal") }

    /// The keychain's files as they are now (as a crash would leave them), copied into `destination`.
    func copy(to destination: URL) throws {
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in ["device.key", "keychain.db", "keychain.db-wal", "keychain.hwm"] {
            let source = directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: destination.appendingPathComponent(name))
        }
    }

    /// Puts back files copied by ``copy(to:)`` (the database and its WAL only), dropping SQLite's shared memory.
    func restoreDatabase(from backup: URL) throws {
        for name in ["keychain.db", "keychain.db-wal", "keychain.db-shm"] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        for name in ["keychain.db", "keychain.db-wal"] {
            let source = backup.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(name))
        }
    }

    /// A copy of the keychain `Tests/Fixtures/NAME` (made by an older build) in a temporary directory of its own, with
    /// a keychain's modes (git checks files out with the umask's).
    static func fixture(_ name: String) throws -> TemporaryDirectory {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
        let directory = try TemporaryDirectory()
        try FileManager.default.copyItem(at: source, to: directory.keychain)
        for name in ["keychain.db", "device.key"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o600], ofItemAtPath: directory.keychain.appendingPathComponent(name).path)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.keychain.path)
        return directory
    }

    /// A second connection to the database, for edits behind the engine's back.
    func rawDatabase() throws -> Database {
        try Database(path: database.path)
    }

    /// Flips the bits of the byte at `offset` of `file`.
    static func flipByte(of file: URL, at offset: Int, with mask: UInt8 = 0xFF) throws {
        var bytes = try Data(contentsOf: file)
        bytes[offset] ^= mask
        try bytes.write(to: file)
    }

    /// The offset in the database file of an item row's record header, found by its group and primary-key hashes
    /// (which only the row's record holds side by side) and checked against its UUID. The engine must be closed and
    /// the WAL checkpointed.
    func recordHeaderOffset(ofRowWith uuid: Data, groupHash: Data, primaryKeyHash: Data) throws -> Int? {
        let file = try Data(contentsOf: database)
        guard let hashes = file.range(of: groupHash + primaryKeyHash) else { return nil }
        // The record header holds serial types: rowid (NULL, 0), uuid (16-byte blob, 44), class (4-byte text, 21).
        let searchStart = max(0, hashes.lowerBound - 200)
        guard let body = file.range(of: uuid, in: searchStart..<hashes.lowerBound) else { return nil }
        let headerSearch = max(0, body.lowerBound - 40)..<body.lowerBound
        return file.range(of: Data([0, 44, 21]), in: headerSearch).map { $0.lowerBound }
    }
}
