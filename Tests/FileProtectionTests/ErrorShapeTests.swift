import Foundation
import KeychainCore
import Testing

@testable import FileProtection

#if canImport(Glibc)
    import Glibc
#endif

@Suite("FileProtectionError has KeychainError's shape: a status, a message, compared by status")
struct ErrorShapeTests {
    @Test("Errors compare and hash by status, describe themselves as message (status) and match in a catch")
    func shape() {
        let specific = FileProtectionError(status: -26275, message: "/tmp/x: the header's tag does not match")
        #expect(specific == .decode)
        #expect(specific != .param)
        #expect(Set([specific, .decode]).count == 1)
        #expect(specific.description == "/tmp/x: the header's tag does not match (-26275)")
        #expect(specific.errorDescription == specific.message)
        var caught = false
        do {
            throw specific as any Error
        } catch FileProtectionError.decode {
            caught = true
        } catch {
            Issue.record("not matched: \(error)")
        }
        #expect(caught)
        #expect(!FileProtectionError.decode.matches(EngineError(.decode, "the engine's own")))
    }

    @Test("A failed system call keeps FileProtection's statuses: an existing file is a duplicate, a full disk full")
    func systemCalls() {
        let exists = FileProtectionError.systemCall("create it", path: "/tmp/x", errno: EEXIST)
        #expect(exists == .duplicateItem)
        #expect(exists.message == "/tmp/x: cannot create it: \(String(cString: strerror(EEXIST)))")
        #expect(FileProtectionError.systemCall("write it", path: "/tmp/x", errno: ENOSPC) == .diskFull)
        #expect(FileProtectionError.systemCall("read it", path: "/tmp/x", errno: EIO) == .ioError)
        #expect(FileProtectionError.notRegularFile("/tmp/x") == .ioError)
    }

    @Test("The engine's error keeps its status and gains the file as a prefix")
    func fromEngine() {
        let error = FileProtectionError(EngineError(.interactionNotAllowed, "class A is locked"), path: "/tmp/x")
        #expect(error == .interactionNotAllowed)
        #expect(error.message == "/tmp/x: class A is locked")
    }
}
