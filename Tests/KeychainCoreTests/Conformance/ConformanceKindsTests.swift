import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Which kinds of backend the conformance suite ran on, said where a report shows it: the daemon's kind runs only
/// as root, and a run without it shows as a skip here rather than as a shorter list of arguments nobody notices.
@Suite("Backend conformance: the kinds it runs on")
struct ConformanceKindsTests {
    @Test("the embedded engine, on disk and in memory")
    func embedded() {
        let kinds = BackendFactory.all.map(\.testDescription)
        #expect(kinds.contains("on disk") && kinds.contains("in memory"))
    }

    @Test(
        "a real keychaind, through its client",
        .enabled(
            if: getuid() == 0,
            Comment(
                rawValue: "skipped: keychaind honours the callers the tests name only for root, so the suite runs "
                    + "through it only as root (CI runs as root)")))
    func throughDaemon() {
        #expect(BackendFactory.all.map(\.testDescription).contains("through keychaind"))
    }
}
