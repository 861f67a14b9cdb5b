import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import security_tool

/// The static release `security` hands its sync verbs to `security-libpq` (DynamicTwin); these check which verbs
/// and which files, and that the tests' own (dynamic) build never hands off. The hand-off itself, an `exec` of the
/// release twin, is exercised by `make bench` and `make install`, which build the static tool.
@Suite("The static tool's dynamic twin")
struct DynamicTwinTests {
    @Test("only the sync verbs, named in full or by a prefix, are handed to the twin")
    func verbs() {
        for verb in ["sync", "sync-init", "sync-join", "sync-approve", "sync-remove", "sync-status", "sync-hist"] {
            #expect(DynamicTwin.handsOff(verb), "\(verb)")
        }
        for verb in ["find-generic-password", "add-generic", "unlock-keychain", "help", "show-keychain-info", ""] {
            #expect(!DynamicTwin.handsOff(verb), "\(verb)")
        }
    }

    @Test("the twin is found beside the tool, else in ../libexec/swift-keychain, and only when executable")
    func lookup() throws {
        let root = try TemporaryDirectory()
        let bin = root.url.appendingPathComponent("bin")
        let libexec = root.url.appendingPathComponent("libexec/swift-keychain")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        let tool = bin.appendingPathComponent("security").path
        #expect(DynamicTwin.twin(of: tool) == nil)

        let installed = libexec.appendingPathComponent("security-libpq").path
        #expect(FileManager.default.createFile(atPath: installed, contents: Data("#!/bin/sh\n".utf8)))
        #expect(DynamicTwin.twin(of: tool) == nil, "a twin that is not executable is no twin")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: installed)
        #expect(DynamicTwin.twin(of: tool) == installed)

        let beside = bin.appendingPathComponent("security-libpq").path
        #expect(
            FileManager.default.createFile(atPath: beside, contents: Data(), attributes: [.posixPermissions: 0o755]))
        #expect(DynamicTwin.twin(of: tool) == beside)
    }

    @Test("the tests' build is linked dynamically, so it loads libpq itself and hands nothing off")
    func dynamicBuild() {
        #expect(!StaticLinking.isStatic)
    }
}
