import Foundation
import TestSupport
import Testing

@testable import KeychainCore

/// The one atomic replace of a small file (keychaind's app registry, issue 22 §4): all or nothing, 0600, no
/// temporary file left, whatever happens.
@Suite("Replacing a file's contents")
struct ReplaceContentsTests {
    @Test("a replace writes all of the new contents at mode 0600 and leaves nothing else in the directory")
    func replaces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("registry.json").path
        try FileDescriptor<EngineError>.replaceContents(of: path, with: Array("first".utf8))
        try FileDescriptor<EngineError>.replaceContents(of: path, with: Array("second, longer".utf8))
        #expect(FileManager.default.contents(atPath: path) == Data("second, longer".utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(entries.filter { $0 != ".keep-directory" } == ["registry.json"])
    }

    @Test("a replace that cannot finish leaves the old contents and no temporary file")
    func failureKeepsTheOld() throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("registry.json").path
        try FileDescriptor<EngineError>.replaceContents(of: path, with: Array("kept".utf8))
        // A directory in the way of the rename: the new file is written, then the rename fails.
        let blocked = directory.url.appendingPathComponent("blocked").path
        try FileManager.default.createDirectory(atPath: blocked, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(
            atPath: (blocked as NSString).appendingPathComponent("inside"), withIntermediateDirectories: false)
        #expect(throws: EngineError.self) {
            try FileDescriptor<EngineError>.replaceContents(of: blocked, with: Array("lost".utf8))
        }
        #expect(FileManager.default.contents(atPath: path) == Data("kept".utf8))
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(Set(entries.filter { $0 != ".keep-directory" }) == ["registry.json", "blocked"])
    }
}
