import Foundation
import TestSupport
import Testing

@testable import KeychainClient
@testable import KeychainCore

@Suite("Item semantics")
struct ItemSemanticsTests {
    /// Issue 21, item 12: a tombstone kept every sealed attribute and the clear lookup hashes forever, even in a
    /// keychain never set up for sync. Sync needs only the removal's record in the change feed.
    @Test("A synchronizable item's delete leaves no row: the change feed reports the removal")
    func noTombstoneRow() throws {
        let keychain = try TestKeychain()
        try keychain.engine.addPassword("s", "3", [.synchronizable: .bool(true)])
        #expect(try keychain.engine.delete(ItemQuery(itemClass: .genericPassword, synchronizable: .any), for: app) == 1)
        let rows = try Database(path: KeychainDirectory(url: keychain.directory.keychain).databasePath)
        #expect(try rows.first("SELECT COUNT(*) FROM items") { $0.integer(0) } == 0)
        let feed = try keychain.engine.changes(since: 0, for: app, limit: 10).changes
        #expect(feed.map(\.kind) == [.added, .removed])
        #expect(feed.last?.isSynchronizable == true)
        #expect(try keychain.engine.verify().isSound)
    }

    @Test("A tombstone row an older build kept goes when the keychain opens; the keychain verifies")
    func olderTombstoneDropped() throws {
        let directory = try KeychainFiles.fixture("schema4-keychain")
        let path = KeychainDirectory(url: directory.keychain).databasePath
        #expect(try Database(path: path).first("SELECT COUNT(*) FROM items WHERE tomb = 1") { $0.integer(0) } == 1)
        let engine = try Engine(storage: .directory(directory.keychain), options: EngineOptions(passcodeCost: .minimum))
        #expect(try Database(path: path).first("SELECT COUNT(*) FROM items WHERE tomb = 1") { $0.integer(0) } == 0)
        try engine.unlock(passcode: "1234")
        #expect(try engine.verify().isSound)
    }

    @Test("Entitlements plists: groups in Apple's order, prefixes expanded")
    func entitlements() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
              <key>application-identifier</key><string>F3FU372W5M.com.pixolity.ios.cookbook.SecurityApp</string>
              <key>keychain-access-groups</key>
              <array><string>$(AppIdentifierPrefix)com.shared</string><string>F3FU372W5M.*</string></array>
              <key>com.apple.security.application-groups</key><array><string>group.com.pixolity</string></array>
            </dict></plist>
            """
        let caller = try Caller(entitlements: Data(plist.utf8), executableName: "app")
        #expect(caller.applicationIdentifier == "F3FU372W5M.com.pixolity.ios.cookbook.SecurityApp")
        #expect(
            caller.accessGroups == [
                "F3FU372W5M.com.shared", "F3FU372W5M.*", "F3FU372W5M.com.pixolity.ios.cookbook.SecurityApp",
                "group.com.pixolity",
            ])
        #expect(caller.defaultGroup == "F3FU372W5M.com.shared")
        #expect(caller.canAccess("F3FU372W5M.anything") && !caller.canAccess("OTHER.x"))
        #expect(status { _ = try Caller(entitlements: Data("not a plist".utf8), executableName: "app") } == .param)
        let none = try Caller.resolve(environment: [:], executablePath: "/nonexistent/bin/tool")
        #expect(none == Caller(applicationIdentifier: "tool"))
        #expect(
            status {
                _ = try Caller.resolve(
                    environment: ["KEYCHAIN_ENTITLEMENTS": "/nonexistent.plist"], executablePath: "/x")
            } == .param)
    }

    @Test("Default locations follow KEYCHAIN_HOME, then XDG_DATA_HOME, then HOME")
    func locations() {
        #expect(
            KeychainStorage.defaultDirectory(environment: ["KEYCHAIN_HOME": "/k", "XDG_DATA_HOME": "/x"]).path == "/k")
        #expect(
            KeychainStorage.defaultDirectory(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]).path
                == "/x/swift-keychain")
        #expect(KeychainStorage.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.local/share/swift-keychain")
    }

    @Test("An in-memory keychain runs the same rules and writes nothing")
    func inMemory() throws {
        let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
        try engine.addPassword("a", "1")
        #expect(status { try engine.addPassword("a", "2") } == .duplicateItem)
        try engine.setPasscode("1234", current: nil)
        engine.lock()
        #expect(status { _ = try engine.password("a") } == .interactionNotAllowed)
        try engine.unlock(passcode: "1234")
        #expect(try engine.password("a") == "1")
    }
}
