import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import FileProtection

/// Issue 9, item 12: writes go through an unnamed file (`O_TMPFILE`) named only once complete; where the file
/// system has none, through a named temporary file as before. Both keep every guarantee of an atomic write.
@Suite("Reliability 12: atomic files, unnamed where the file system allows and named elsewhere")
struct AtomicFileTests {
    static func mode(_ url: URL) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    }

    @Test("Reliability 12: while an unnamed file is written the directory holds nothing; commit names it whole")
    func unnamed() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.file("out")
        let file = try AtomicFile(destination: destination)
        #expect(file.isUnnamed, "O_TMPFILE is not available in \(directory.url.path)")
        try file.file.write(Array(repeating: 7, count: 100_000))
        #expect(try directory.entries() == [])
        try file.commit()
        #expect(try directory.entries() == ["out"])
        #expect(FileManager.default.contents(atPath: destination.path) == Data(repeating: 7, count: 100_000))
        #expect(try Self.mode(destination) == 0o600)
    }

    @Test(
        "Reliability 12: both ways replace an existing file, refuse one without overwriting, and leave no trace",
        arguments: [true, false])
    func replaceAndRefuse(unnamed: Bool) throws {
        let directory = try TemporaryDirectory()
        let destination = directory.file("out")
        try Data("old".utf8).write(to: destination)
        let replacing = try AtomicFile(destination: destination, allowingUnnamed: unnamed)
        #expect(replacing.isUnnamed == unnamed)
        try replacing.file.write(Array("new".utf8))
        #expect(FileManager.default.contents(atPath: destination.path) == Data("old".utf8))
        try replacing.commit()
        #expect(FileManager.default.contents(atPath: destination.path) == Data("new".utf8))
        #expect(try Self.mode(destination) == 0o600)
        #expect(try directory.entries() == ["out"])

        let refused = try AtomicFile(destination: destination, allowingUnnamed: unnamed)
        try refused.file.write(Array("other".utf8))
        #expect(throws: FileProtectionError.self) { try refused.commit(overwriting: false) }
        #expect(FileManager.default.contents(atPath: destination.path) == Data("new".utf8))
        refused.discard()
        #expect(try directory.entries() == ["out"])

        let fresh = directory.file("fresh")
        let created = try AtomicFile(destination: fresh, allowingUnnamed: unnamed)
        try created.file.write(Array("fresh".utf8))
        try created.commit(overwriting: false)
        #expect(FileManager.default.contents(atPath: fresh.path) == Data("fresh".utf8))
        #expect(try directory.entries() == ["fresh", "out"])
    }

    @Test("Reliability 12: the fallback writes a named temporary file, removed when the write is abandoned")
    func namedFallback() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.file("out")
        var file: FileProtection.AtomicFile? = try FileProtection.AtomicFile(
            destination: destination, allowingUnnamed: false)
        try file?.file.write(Array("partial".utf8))
        let entries = try directory.entries()
        #expect(entries.count == 1 && entries[0].hasPrefix(".out.") && entries[0].hasSuffix(".tmp"), "\(entries)")
        file = nil
        #expect(try directory.entries() == [])
    }

    @Test("Reliability 12: an abandoned unnamed write leaves nothing, and the destination as it was")
    func unnamedAbandoned() throws {
        let directory = try TemporaryDirectory()
        let destination = directory.file("out")
        try Data("old".utf8).write(to: destination)
        var file: FileProtection.AtomicFile? = try FileProtection.AtomicFile(destination: destination)
        try file?.file.write(Array("partial".utf8))
        file = nil
        #expect(try directory.entries() == ["out"])
        #expect(FileManager.default.contents(atPath: destination.path) == Data("old".utf8))
    }
}
