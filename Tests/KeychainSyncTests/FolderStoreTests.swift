import Foundation
import TestSupport
import Testing

@testable import KeychainSync

/// What the folder store does beyond the conformance checks: its layout, what file-sync tools leave beside the
/// records, writers killed midway, the folder going away, and watches of other processes' writes.
@Suite struct FolderStoreTests {
    @Test func ignoresWhatFileSyncToolsLeave() throws {
        let fixture = try FolderFixture()
        let store = try fixture.open()
        #expect(try store.putIfAbsent("devices/a/log/1", [1]))
        let directory = fixture.path + "/devices@/a@/log@"
        let leftovers = [
            // Syncthing's versions folder, its temporary files and conflict copies (uppercase device ids).
            fixture.path + "/.stversions/devices@/a@/log@/1~20261201-101010",
            directory + "/.syncthing.2.tmp",
            directory + "/1.sync-conflict-20261201-101010-ABCDEFG",
            fixture.path + "/.stfolder/marker",
            fixture.path + "/.stignore",
            // Other tools' debris, a torn temporary file of this store's, a directory without the record suffix.
            directory + "/.DS_Store", directory + "/Thumbs.db", directory + "/3 (conflicted copy)",
            directory + "/.keychain-sync-0f6d1c2e.tmp", fixture.path + "/devices/a/log/9",
        ]
        for leftover in leftovers {
            try FileManager.default.createDirectory(
                atPath: FolderLayout.parent(of: leftover), withIntermediateDirectories: true)
            try Data("debris".utf8).write(to: URL(fileURLWithPath: leftover))
        }
        #expect(try store.list(prefix: "") == ["devices/a/log/1"])
        #expect(try store.list(prefix: "devices/a/log/") == ["devices/a/log/1"])
        #expect(try store.get("devices/a/log/2") == nil)
        #expect(try store.putIfAbsent("devices/a/log/2", [2]))
        #expect(try store.list(prefix: "devices/") == ["devices/a/log/1", "devices/a/log/2"])
    }

    @Test func layoutKeepsRecordsAndDirectoriesApartWithPrivateModes() throws {
        let fixture = try FolderFixture()
        let store = try fixture.open()
        #expect(try store.putIfAbsent("a/b", [1]))
        #expect(try store.putIfAbsent("a/b/c", [2]))
        #expect(try store.putIfAbsent(".hidden/.x", [3]))  // a segment may start with a dot: no record is a dotfile
        #expect(try store.list(prefix: "") == [".hidden/.x", "a/b", "a/b/c"])
        let expected = [
            fixture.path + "/a@": 0o700, fixture.path + "/a@/b": 0o600, fixture.path + "/a@/b@": 0o700,
            fixture.path + "/a@/b@/c": 0o600, fixture.path + "/.hidden@/@.x": 0o600, fixture.path: 0o700,
        ]
        for (path, mode) in expected {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(path)")
        }
    }

    /// A half-written temporary file (a writer killed before naming it) is never a record.
    @Test func tornTemporaryFileIsNeverVisible() throws {
        let fixture = try FolderFixture()
        let store = try FolderStore(path: fixture.path, pollInterval: 1, usesInotify: true, usesUnnamedFiles: false)
        #expect(try store.putIfAbsent("r/1", Array(repeating: 1, count: 100)))
        try Data(repeating: 2, count: 10).write(
            to: URL(fileURLWithPath: fixture.path + "/r@/.keychain-sync-\(UUID().uuidString.lowercased()).tmp"))
        #expect(try store.list(prefix: "") == ["r/1"])
        #expect(try store.get("r/2") == nil)
        #expect(try store.putIfAbsent("r/2", [3]))
        #expect(try store.get("r/2") == [3])
        // The named temporary files of the fallback path are gone once each write returns.
        let entries = try FileManager.default.contentsOfDirectory(atPath: fixture.path + "/r@").sorted()
        #expect(entries.filter { !$0.hasPrefix(".keychain-sync-") } == ["1", "2"])
        #expect(entries.count == 3)
    }

    /// Writers in other processes killed at random points of a 32 MiB record leave all of it or nothing.
    @Test func killedWriterLeavesAllOrNothing() throws {
        let fixture = try FolderFixture()
        let store = try fixture.open()
        let pattern = Data(repeating: 0xA5, count: 32 << 20)
        for round in 0..<6 {
            let name = "big/\(round)"
            let (process, _, _) = try StressProcess.startExecutable(
                BuiltExecutable.named("sync-store-probe"), ["put-pattern", fixture.url, name, "32"])
            Thread.sleep(forTimeInterval: Double.random(in: 0.005...0.3))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let listed = try store.list(prefix: name)
            #expect(listed == [] || listed == [name])
            if listed == [name] { #expect(try store.get(name).map { Data($0) } == pattern) }
            if listed == [] { #expect(try store.putIfAbsent(name, [1])) }
        }
    }

    @Test func namedTemporaryFilesStillNeverOverwrite() throws {
        let fixture = try FolderFixture()
        let fallback = try FolderStore(path: fixture.path, pollInterval: 1, usesInotify: true, usesUnnamedFiles: false)
        #expect(try fallback.putIfAbsent("n/1", [1]))
        #expect(try !fallback.putIfAbsent("n/1", [2]))
        #expect(try fallback.get("n/1") == [1])
        try StoreConformance.concurrentPutIfAbsentHasOneWinner(FallbackFixture(path: fixture.path))
        let batches = try FolderFixture()
        try StoreConformance.putAllIfAbsentStopsAtTheFirstTakenName(FallbackFixture(path: batches.path))
        withExtendedLifetime(batches) {}
    }

    @Test func missingFolderIsUnavailableUntilBack() throws {
        let fixture = try FolderFixture()
        let store = try fixture.open()
        #expect(try store.putIfAbsent("m/1", [1]))
        let away = fixture.directory.file("away").path
        #expect(rename(fixture.path, away) == 0)
        StoreConformance.expectEveryVerbFails(store, with: .unavailable, naming: fixture.path)
        #expect(!FileManager.default.fileExists(atPath: fixture.path))  // nothing was recreated in its place
        #expect(rename(away, fixture.path) == 0)
        #expect(try store.list(prefix: "") == ["m/1"])
        #expect(try store.putIfAbsent("m/2", [2]))
    }

    @Test func watchSeesAnotherProcessAndAFileSyncToolsRename() throws {
        let fixture = try FolderFixture()
        let store = try fixture.open()
        let counter = ChangeCounter()
        let watch = try store.watch(counter.onChange)
        defer { watch.cancel() }
        var calls = counter.calls
        let result = try StressProcess.runExecutable(
            BuiltExecutable.named("sync-store-probe"), ["put", fixture.url, "devices/b/log/1", "from another process"])
        #expect(result.status == 0 && result.output == "true\n", "\(result.errors)")
        #expect(counter.wait(beyond: calls), "no call for another process's write")
        #expect(try store.get("devices/b/log/1") == Array("from another process".utf8))
        Thread.sleep(forTimeInterval: 0.1)
        calls = counter.calls
        // As Syncthing delivers a file: a temporary file in place, then renamed.
        let directory = fixture.path + "/devices@/b@/log@"
        let shell = try StressProcess.runExecutable(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c",
                "printf delivered > '\(directory)/.syncthing.2.tmp' && mv '\(directory)/.syncthing.2.tmp' '\(directory)/2'",
            ])
        #expect(shell.status == 0, "\(shell.errors)")
        #expect(counter.wait(beyond: calls), "no call for a file-sync tool's rename")
        #expect(try store.list(prefix: "devices/b/") == ["devices/b/log/1", "devices/b/log/2"])
    }

    /// Where inotify reports nothing (a network file system), the poll still finds other writers' records.
    @Test func pollAloneSeesChanges() throws {
        let fixture = try FolderFixture()
        let store = try FolderStore(path: fixture.path, pollInterval: 0.2, usesInotify: false, usesUnnamedFiles: true)
        let counter = ChangeCounter()
        let watch = try store.watch(counter.onChange)
        defer { watch.cancel() }
        #expect(try fixture.open().putIfAbsent("p/1", [1]))
        #expect(counter.wait(beyond: 0), "the poll missed an add")
        Thread.sleep(forTimeInterval: 0.5)
        let calls = counter.calls
        Thread.sleep(forTimeInterval: 0.6)
        #expect(counter.calls == calls, "the poll reported a change when there was none")
        try fixture.open().delete("p/1")
        #expect(counter.wait(beyond: calls), "the poll missed a delete")
    }
}

/// Folder stores that write through named temporary files, as on a file system without `O_TMPFILE`.
private struct FallbackFixture: StoreFixture {
    let path: String
    func open() throws(SyncStoreError) -> any SyncStore {
        try FolderStore(path: path, pollInterval: 1, usesInotify: true, usesUnnamedFiles: false)
    }
}
