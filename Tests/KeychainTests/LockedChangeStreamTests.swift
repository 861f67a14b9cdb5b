import Foundation
import KeychainCore
import Synchronization
import TestSupport
import Testing

@testable import Keychain

/// A stream's changes as "kind account" lines, read on a task of its own so the test can wait for them.
private final class ChangeRecorder: Sendable {
    private final class Lines: Sendable {
        let value = Mutex<[String]>([])
    }

    private let lines = Lines()
    private let reader: Task<Void, Never>

    init(_ changes: KeychainChanges<GenericPassword>) {
        let lines = self.lines
        reader = Task {
            for await change in changes {
                let line =
                    switch change {
                    case .added(let item): "added \(item.account)"
                    case .updated(let item): "updated \(item.account)"
                    case .removed(let item): "removed \(item.account)"
                    }
                lines.value.withLock { $0.append(line) }
            }
        }
    }

    deinit {
        reader.cancel()
    }

    /// The lines once there are `count` of them, or what came within ten seconds (a bound for a loaded machine,
    /// not a speed check).
    func wait(for count: Int) async -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while clock.now < deadline, lines.value.withLock({ $0.count }) < count {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // A moment more: a change reported twice would show now.
        try? await Task.sleep(for: .milliseconds(50))
        return lines.value.withLock { $0 }
    }
}

/// Issue 20, item 11: the change stream across a lock. A change to an item whose class is locked in this process is
/// reported once it can be read (after the unlock), never skipped; removals are reported while locked; and a
/// stream started while locked learns the items at the unlock, so it reports their later removals, the erase's
/// included.
@Suite("Change stream across a lock: every change once, attributes as soon as they can be read", .serialized)
struct LockedChangeStreamTests {
    /// `security -i` in another process, unlocked with the passcode, running `commands` on the keychain.
    private func otherProcess(_ directory: URL, _ commands: [String]) throws {
        let process = Process()
        process.executableURL = BuiltExecutable.named("security")
        process.arguments = ["-i"]
        var environment = ProcessInfo.processInfo.environment
        environment["KEYCHAIN_HOME"] = directory.path
        environment["KEYCHAIN_DAEMON"] = "off"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let script = (["unlock-keychain -p 1234"] + commands).joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "security -i: \(message)")
    }

    private let group = "--access-group TEAM.com.example.app"

    @Test("Another process's adds and updates while this one is locked arrive after the unlock; removals at once")
    func changesAcrossALock() async throws {
        let fixture = try TestKeychain()
        let directory = try #require(fixture.directory).keychain
        let keychain = fixture.keychain
        try await keychain.setPasscode("1234")
        try await keychain.set("1", for: "a")
        try await keychain.set("9", for: "c")
        let recorder = ChangeRecorder(try keychain.changes())
        try await keychain.lock()
        try otherProcess(
            directory,
            [
                "add-generic-password -a b -s api \(group) -w 3", "add-generic-password -U -a a -s api \(group) -w 2",
                "delete-generic-password -a c -s api",
            ])
        #expect(await recorder.wait(for: 1) == ["removed c"], "the removal is reported while locked")
        #expect(try await keychain.keybagState().isLocked)
        try await keychain.unlock(passcode: "1234")
        #expect(await recorder.wait(for: 3) == ["removed c", "added b", "updated a"])
        try await keychain.set("4", for: "d")
        #expect(await recorder.wait(for: 4) == ["removed c", "added b", "updated a", "added d"])
    }

    @Test("A stream started while locked reports later removals, the erase after wrong passcodes included")
    func streamStartedWhileLocked() async throws {
        let fixture = try TestKeychain()
        let directory = try #require(fixture.directory).keychain
        let keychain = fixture.keychain
        try await keychain.setPasscode("1234")
        try await keychain.set("1", for: "a")
        try await keychain.set("2", for: "b")
        try await keychain.lock()
        let recorder = ChangeRecorder(try keychain.changes())
        try otherProcess(directory, ["add-generic-password -a c -s api \(group) -w 3"])
        try await keychain.unlock(passcode: "1234")
        #expect(await recorder.wait(for: 1) == ["added c"])
        try await keychain.lock()
        try otherProcess(directory, ["delete-generic-password -a a -s api"])
        #expect(await recorder.wait(for: 2) == ["added c", "removed a"])

        // The erase, by another writer while this process is locked.
        let clock = Mutex(Date())
        let eraser = try Engine(
            storage: .directory(directory),
            options: EngineOptions(passcodeCost: .minimum, now: { clock.withLock { $0 } }))
        try eraser.setEraseAfter(failures: 6, passcode: "1234")
        for attempt in 1...6 {
            #expect(throws: EngineError.self) { try eraser.unlock(passcode: "wrong") }
            if attempt == 5 { clock.withLock { $0 += 3600 } }
        }
        #expect(await recorder.wait(for: 4) == ["added c", "removed a", "removed b", "removed c"])
    }
}
