import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 9, item 12: a `protect-file` or `unprotect-file` killed half-way leaves nothing in the output's directory:
/// the file is written without a name, and named only once complete.
@Suite("Reliability 12: a killed file verb leaves no partial file behind")
struct InterruptedFileWriteTests {
    /// Seeing the tool's open files needs the right to trace it; the tool is not dumpable, so only root has it.
    static var canSeeOpenFiles: Bool { geteuid() == 0 }

    /// The size of the output file the tool `pid` is writing in `directory` (named there or not), if any.
    static func outputBeingWritten(by pid: pid_t, in directory: String) -> Int? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else {
            return nil
        }
        for descriptor in descriptors {
            let link = "/proc/\(pid)/fd/\(descriptor)"
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link),
                target.hasPrefix(directory + "/")
            else { continue }
            var status = stat()
            if stat(link, &status) == 0 { return Int(status.st_size) }
        }
        return nil
    }

    @Test(
        "Reliability 12: a SIGKILLed unprotect-file or protect-file leaves no file in the output's directory",
        .enabled(if: canSeeOpenFiles, "watching the tool's open files needs root (it is not dumpable)"),
        arguments: ["unprotect-file", "protect-file"])
    func killedMidWrite(verb: String) throws {
        let home = try TestHome()
        let plain = home.keychain("plain")
        var block = [UInt8](repeating: 0, count: 1 << 20)
        for index in block.indices { block[index] = UInt8.random(in: 0...255) }
        #expect(FileManager.default.createFile(atPath: plain, contents: nil))
        let file = try #require(FileHandle(forWritingAtPath: plain))
        for _ in 0..<128 { file.write(Data(block)) }
        try file.close()
        var input = plain
        if verb == "unprotect-file" {
            input = home.keychain("protected")
            let protected = try home.tool.run(["protect-file", "-c", "none", plain, input])
            try #require(protected.status == 0, "\(protected.errors)")
        }
        let outputs = home.keychain("outputs")
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: false)

        let child = try Spawn.start(
            SecurityProcess.executable, [verb, input, outputs + "/out"], environment: home.tool.processEnvironment,
            descriptors: [-1, -1, -1], controllingTerminal: nil)
        var killedAt: Int?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let size = Self.outputBeingWritten(by: child, in: outputs), size > 4 << 20 {
                kill(child, SIGKILL)
                killedAt = size
                break
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                Issue.record("\(verb) finished before it could be killed mid-write")
                return
            }
            usleep(200)
        }
        if killedAt == nil { kill(child, SIGKILL) }
        let status = try Spawn.waitStatus(child)
        #expect(killedAt != nil, "the write was never seen")
        #expect(status & 0x7F == SIGKILL)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: outputs) == [], "after a kill at \(killedAt ?? 0) bytes"
        )
    }
}
