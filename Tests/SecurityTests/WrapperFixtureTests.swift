import Foundation
import TestSupport
import Testing

/// Tests/WrapperFixture: keychain code written as the popular wrapper libraries write it, in a package that depends
/// on the `Security` product alone, built with `swift build` as a user's package is and run on a keychain of the
/// test's own. It reports each of its checks; every one must pass.
@Suite struct WrapperFixtureTests {
    /// The repository's root (this file is Tests/SecurityTests/WrapperFixtureTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every check the fixture makes (its `check` calls), so a check that silently stopped running is noticed.
    static let checks = [
        "data-account set", "data-account get", "data-account set again updates", "data-account allKeys",
        "string account finds data account", "data-account remove", "data-account removeAll", "fluent set",
        "fluent synchronizable this-device-only set", "fluent get", "fluent attributes data",
        "fluent attributes account", "fluent attributes class", "fluent attributes synchronizable",
        "fluent attributes persistent ref", "fluent references", "fluent allKeys", "fluent removeAll",
        "hashable set", "hashable set without data", "hashable data of item without data",
        "hashable item without data", "hashable item account", "cferror code", "cferror domain",
        "cferror description", "cferror user info", "random bytes", "key pem made", "key stored by tag",
        "key legacy encrypt", "key legacy decrypt", "key permanent found again", "key signature verifies",
    ]

    @Test func wrapperCodeBuildsAgainstSecurityAloneAndPassesItsChecks() throws {
        // Kept under the root's .build so that later runs rebuild only what changed (a first build takes about a
        // minute); `make clean` removes it.
        let scratch = Self.root.appendingPathComponent(".build/wrapper-fixture")
        let build = try Self.run(
            "/usr/bin/env",
            [
                "swift", "build", "--package-path", Self.root.appendingPathComponent("Tests/WrapperFixture").path,
                "--scratch-path", scratch.path,
            ])
        try #require(build.status == 0, "swift build of the fixture failed:\n\(build.output)")
        let home = try TemporaryDirectory()
        let run = try Self.run(
            scratch.appendingPathComponent("debug/wrapper-fixture").path, [],
            environment: ["KEYCHAIN_HOME": home.keychain.path])
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "\(run.output)")
        #expect(!lines.contains { $0.hasPrefix("FAIL") }, "\(run.output)")
        #expect(Set(lines.filter { $0.hasPrefix("ok ") }) == Set(Self.checks.map { "ok \($0)" }), "\(run.output)")
        #expect(lines.last == "all passed")
    }

    /// Runs a process to its end (it is reaped even when reading fails) and returns its status and its output and
    /// errors together.
    static func run(
        _ executable: String, _ arguments: [String], environment extra: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment.merging(extra) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
