import Foundation
import KeychainCore
import Security
import Synchronization
import TestSupport
import Testing

/// `keychain-stress watch DIR` in a process of its own: a `Keychain.changes()` stream whose lines the test reads.
/// Killed and reaped when released, whatever the test's outcome.
private final class ChangeWatcherProcess {
    /// Everything the watcher printed, after a newline (so every line is found as "\nLINE\n").
    private final class Output: Sendable {
        let text = Mutex("\n")
    }

    private let process: Process
    private let output = Output()

    init(directory: URL) throws {
        let (process, pipe, _) = try StressProcess.start(["watch", directory.path])
        self.process = process
        let output = self.output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try wait(for: "ready")
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// Waits for the watcher to print `line` (ten seconds at most: a bound for a loaded machine, not a speed
    /// check) and returns how long it took.
    @discardableResult
    func wait(for line: String) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        while clock.now - start < .seconds(10) {
            if output.text.withLock({ $0.contains("\n\(line)\n") }) { return clock.now - start }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let seen = output.text.withLock { $0 }
        Issue.record("the watcher did not print \"\(line)\"; it printed: \(seen)")
        return clock.now - start
    }
}

@Suite(
    "Change feed across processes: a Keychain.changes() stream in another process sees every writer",
    .serialized, .timeLimit(.minutes(2)))
struct CrossProcessChangeTests {
    private func genp(_ account: String, _ extra: [NSString: Any] = [:]) -> NSDictionary {
        let base: [NSString: Any] = [
            kSecClass: kSecClassGenericPassword, kSecAttrAccount: account, kSecAttrService: "cross",
        ]
        return base.merging(extra) { _, new in new } as NSDictionary
    }

    @Test("SecItemAdd, SecItemUpdate and SecItemDelete in this process")
    func securityWrites() throws {
        let keychain = try TestSecItemKeychain()
        let watcher = try ChangeWatcherProcess(directory: keychain.directory.url.appendingPathComponent("keychain"))
        let query = genp("sec")
        let item = genp("sec", [kSecValueData: Data("one".utf8)])
        keychain.run { #expect(SecItemAdd(item, nil) == errSecSuccess) }
        let added = try watcher.wait(for: "added sec")
        keychain.run {
            #expect(SecItemUpdate(query, [kSecValueData: Data("two".utf8)] as NSDictionary) == errSecSuccess)
        }
        try watcher.wait(for: "updated sec")
        keychain.run { #expect(SecItemDelete(query) == errSecSuccess) }
        try watcher.wait(for: "removed sec")
        print("cross-process change notice: \(added) from SecItemAdd to the other process's stream")
    }

    @Test("The security tool, in a third process")
    func cliWrites() throws {
        let directory = try TemporaryDirectory()
        let keychain = directory.url.appendingPathComponent("keychain")
        _ = try Engine(storage: .directory(keychain), options: EngineOptions(passcodeCost: .minimum))
        let watcher = try ChangeWatcherProcess(directory: keychain)
        let tool = BuiltExecutable.named("security")
        func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = tool
            process.arguments = arguments + [keychain.path]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "security \(arguments.joined(separator: " "))")
        }
        try run(["add-generic-password", "-a", "cli", "-s", "cross", "-w", "one"])
        try watcher.wait(for: "added cli")
        try run(["add-generic-password", "-U", "-a", "cli", "-s", "cross", "-w", "two"])
        try watcher.wait(for: "updated cli")
        try run(["delete-generic-password", "-a", "cli", "-s", "cross"])
        try watcher.wait(for: "removed cli")
    }

    @Test("The erase after too many wrong passcodes, seen by a process that never unlocked")
    func eraseAfterWrongPasscodes() throws {
        let directory = try TemporaryDirectory()
        let keychain = directory.url.appendingPathComponent("keychain")
        let clock = Mutex(Date())
        let engine = try Engine(
            storage: .directory(keychain),
            options: EngineOptions(passcodeCost: .minimum, now: { clock.withLock { $0 } }))
        try engine.setPasscode("1234", current: nil)
        // Class `dk` (Always): the watcher reads its attributes while its own keybag is locked.
        SecItemKeychain(backend: engine, caller: testApp).run {
            let item = genp("doomed", [kSecAttrAccessible: kSecAttrAccessibleAlways, kSecValueData: Data("x".utf8)])
            #expect(SecItemAdd(item, nil) == errSecSuccess)
        }
        try engine.setEraseAfter(failures: 6, passcode: "1234")
        let watcher = try ChangeWatcherProcess(directory: keychain)
        for attempt in 1...6 {
            #expect(throws: EngineError.self) { try engine.unlock(passcode: "wrong") }
            if attempt == 5 { clock.withLock { $0 += 3600 } }
        }
        #expect(try !engine.keybagStatus().hasPasscode)
        try watcher.wait(for: "removed doomed")
    }
}
