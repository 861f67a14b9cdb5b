import Foundation
import TestSupport
import Testing

/// Issue 27: `security sync` shows how far a pass is on a terminal (records received, then items applied), and
/// writes nothing of it in a pipe.
@Suite("Sync progress on a terminal", .timeLimit(.minutes(3)))
struct SyncProgressVerbTests {
    private func device(_ home: TestHome) -> SecurityProcess {
        var tool = home.tool
        tool.environment["KEYCHAIN_DAEMON"] = "off"
        return tool
    }

    @Test("a joined device's sync shows records received and items applied on a terminal, and nothing in a pipe")
    func progressOnTerminal() throws {
        let homeA = try TestHome()
        let homeB = try TestHome()
        let homeC = try TestHome()
        let (a, b, c) = (device(homeA), device(homeB), device(homeC))
        let store = "file://" + homeA.url.appendingPathComponent("store").path
        #expect(try a.run(["sync-init", "--store", store, "--device", "laptop"]).status == 0)
        for (joining, name) in [(b, "desktop"), (c, "server")] {
            #expect(try joining.run(["sync-join", "--store", store, "--device", name, "--wait", "0"]).status == 0)
            #expect(try a.run(["sync-approve"]).status == 0)
            let code = try joining.run(["sync-code"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
            let approved = try a.run(["sync-approve", code])
            #expect(approved.status == 0, "\(approved.errors)")
        }
        for account in ["alice", "bob", "carol"] {
            let added = try a.run(["add-generic-password", "-a", account, "-s", "mail", "-w", "pw", "--synchronizable"])
            #expect(added.status == 0, "\(added.errors)")
        }
        #expect(try a.run(["sync"]).status == 0)

        let session = try TerminalSession(["sync"], process: b, errorsOnTerminal: true)
        let result = try session.finish()
        #expect(result.status == 0, "\(result.errors) \(session.screen)")
        #expect(session.screen.contains("received "), "\(session.screen)")
        #expect(session.screen.contains("applied 3 of 3 items"), "\(session.screen)")
        #expect(session.screen.contains("\r\u{1B}[K"), "never erased")
        #expect(try b.run(["find-generic-password", "-a", "carol", "-s", "mail", "-w"]).output == "pw\n")

        let piped = try c.run(["sync"])
        #expect(piped.status == 0, "\(piped.errors)")
        #expect(!piped.errors.contains("\u{1B}[K") && !piped.errors.contains("applied"), "a pipe got progress")
        #expect(try c.run(["find-generic-password", "-a", "carol", "-s", "mail", "-w"]).output == "pw\n")
    }
}
