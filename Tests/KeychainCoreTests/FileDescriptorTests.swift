import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

@Suite("The one file-descriptor layer: whole transfers, positions, modes and errors that name the file")
struct FileDescriptorTests {
    private typealias File = FileDescriptor<EngineError>

    @Test("Positional writes and reads leave the file position alone; a read past the end returns what there is")
    func positionalTransfers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("data").path
        let created = try File.createExclusively(path)
        try created.write(Array("hello world".utf8))
        try created.close()

        let file = try File.open(path, O_RDWR)
        try file.write(Array("WORLD".utf8), at: 6)
        #expect(try file.readBytes(count: 5, at: 6) == Array("WORLD".utf8))
        // The position is still 0: the positional calls did not move it.
        #expect(try file.readBytes(count: 100) == Array("hello WORLD".utf8))
        #expect(try file.readBytes(count: 10).isEmpty)
        #expect(try file.readBytes(count: 10, at: 11).isEmpty)
        #expect(try file.size() == 11)
    }

    @Test("An exclusive create makes a 0600 file and refuses an existing path, naming it; a missing file is nil")
    func createAndOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("key").path
        _ = try File.createExclusively(path)
        #expect(try File.openForReading(path).status().st_mode & 0o777 == 0o600)
        do {
            _ = try File.createExclusively(path)
            Issue.record("an existing file was created again")
        } catch {
            #expect(error.code == .ioError)
            #expect(error.message == "\(path): cannot create it: \(String(cString: strerror(EEXIST)))")
        }
        #expect(try File.openIfExists(directory.file("missing").path, O_RDONLY) == nil)
        do {
            _ = try File.openForReading(directory.url.path)
            Issue.record("a directory was opened as a file")
        } catch {
            #expect(error.code == .invalidKeychain)
            #expect(error.message.contains(directory.url.path))
        }
    }

    @Test("The engine's status of a failed call: a full disk or quota, a read-only file system, else I/O")
    func engineStatuses() {
        #expect(EngineError.systemCall("write it", path: "/x", errno: ENOSPC).code == .diskFull)
        #expect(EngineError.systemCall("write it", path: "/x", errno: EDQUOT).code == .diskFull)
        #expect(EngineError.systemCall("write it", path: "/x", errno: EROFS).code == .writePermission)
        #expect(EngineError.systemCall("write it", path: "/x", errno: EIO).code == .ioError)
    }

    @Test("An exclusive lock is held while its body runs and released after it")
    func exclusiveLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("mark").path
        let file = try File.open(path, O_RDWR | O_CREAT, mode: 0o600)
        // Another open file of the same path, as another process would have: flock locks are per open file.
        let other = Glibc.open(path, O_RDWR | O_CLOEXEC)
        try #require(other >= 0)
        defer { Glibc.close(other) }
        let value = try file.withExclusiveLock { () throws(EngineError) -> Int in
            #expect(flock(other, LOCK_EX | LOCK_NB) != 0)
            return 7
        }
        #expect(value == 7)
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
    }
}
