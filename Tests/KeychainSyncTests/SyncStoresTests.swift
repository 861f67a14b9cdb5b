import Foundation
import KeychainSync
import TestSupport
import Testing

/// Store URLs: the forms each store takes, and the ones refused with `.invalidURL` naming the URL.
@Suite struct SyncStoresTests {
    @Test func fileURLOpensAFolderStore() throws {
        let directory = try TemporaryDirectory(prefix: "kcsync")
        let path = directory.url.appendingPathComponent("my store").path
        let store = try SyncStores.open(url: "file://" + path.replacingOccurrences(of: " ", with: "%20"))
        #expect((store as? FolderStore)?.path == path)
        #expect(try store.putIfAbsent("x", [1]))
        #expect(
            try SyncStores.open(url: "file://localhost" + path.replacingOccurrences(of: " ", with: "%20")).get("x") == [
                1
            ])
    }

    @Test(arguments: [
        ("s3://bucket/keychain", "s3"), ("https://example.com/x", "https"), ("/plain/path", "no scheme"),
        ("file:relative", "no scheme"), ("file://host/x", "host"), ("file://", "no absolute folder"),
        ("file:///a/../b", ".."), ("file:///a?poll=1", "?"), ("mysql://user:pw@h/db", "mysql"),
        ("postgresql://h/db?nonsense=1", "nonsense"), ("postgres://[::1/db", "malformed"),
    ])
    func malformedOrUnknownURLsAreRefusedByName(url: String, named: String) {
        do {
            _ = try SyncStores.open(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.kind == .invalidURL, "\(url): \(error)")
            #expect(error.message.contains(named), "\(error.message)")
            if !url.contains("user:pw") { #expect(error.message.contains(url), "\(error.message)") }
            #expect(!error.message.contains(":pw@"), "\(error.message)")
        }
    }

    @Test func folderWhoseParentIsMissingIsUnavailable() throws {
        let directory = try TemporaryDirectory(prefix: "kcsync")
        let url = "file://" + directory.url.path + "/missing/parent/store"
        do {
            _ = try SyncStores.open(url: url)
            Issue.record("a folder was created under a missing parent")
        } catch {
            #expect(error.kind == .unavailable)
            #expect(error.message.contains("missing/parent/store"))
        }
    }
}
