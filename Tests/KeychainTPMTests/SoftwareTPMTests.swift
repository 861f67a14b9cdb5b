import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(
    "The software TPM harness",
    .enabled(if: SoftwareTPM.unavailableReason == nil, "needs swtpm (scripts/bootstrap installs it)"))
struct SoftwareTPMTests {
    private struct Failure: Error {}

    @Test("a software TPM is killed and reaped when the test that started it throws")
    func reapedOnFailure() throws {
        var started: pid_t?
        do {
            let tpm = try SoftwareTPM()
            started = tpm.processIdentifier
            #expect(started.map { kill($0, 0) } == 0)
            throw Failure()
        } catch is Failure {}
        let pid = try #require(started)
        // Reaped, not a zombie: the id names no process any more.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }
}
