import Foundation
import Keychain
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20, item 9: a keychain that cannot be created on a full file system leaves nothing behind: no directory,
/// no temporary file, no keychain without the passcode it was asked for.
@Suite("Leftovers: creating a keychain on a full file system leaves nothing", .serialized)
struct LeftoverTests {
    @Test(
        "create-keychain and Keychain.create on a full tmpfs: each fails with the disk full, and nothing is left",
        .enabled(if: TemporaryMount.isPermitted, "needs root and the right to mount a tmpfs"))
    func fullFileSystem() throws {
        // About 170 KiB make a keychain here: the sweep crosses from failing to succeeding.
        let size = 256
        let small = try #require(try TemporaryMount(size: "\(size)k"))
        let home = try TestHome()
        var (failures, successes) = (0, 0)
        for free in stride(from: 0, through: size, by: 8) {
            for target in ["kc", "deeper/nested/kc"] {
                try small.fill(leaving: free, of: size)
                let path = small.url.appendingPathComponent(target)
                let result = try home.tool.run(["create-keychain", "-p", "", path.path])
                if result.status == 0 {
                    successes += 1
                    #expect(try home.tool.run(["delete-keychain", path.path]).status == 0)
                    continue
                }
                failures += 1
                #expect(result.errors.contains("disk is full"), "\(free) KiB free: \(result.errors)")
                #expect(try small.entries() == ["fill"], "\(free) KiB free, \(target): \(result.errors)")

                try small.fill(leaving: free, of: size)
                do {
                    _ = try Keychain.create(service: "s", in: path)
                } catch {
                    #expect(try small.entries() == ["fill"], "\(free) KiB free, \(target), the API: \(error)")
                }
            }
        }
        #expect(failures > 0 && successes > 0, "\(failures) failures, \(successes) successes")
    }
}
