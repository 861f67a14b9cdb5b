import Testing

@testable import KeychainCore

/// The passcode policy itself; how a keychain applies it is in the backend conformance suite
/// (`KeybagConformanceTests`).
@Suite("Passcode policy")
struct KeybagTests {
    @Test("The wait schedule is 1, 5, 15, then 60 minutes")
    func waitSchedule() {
        #expect((1...4).map(PasscodePolicy.wait(afterFailures:)) == [0, 0, 0, 0])
        #expect((5...9).map(PasscodePolicy.wait(afterFailures:)) == [60, 300, 900, 3600, 3600])
    }
}
