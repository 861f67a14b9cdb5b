import FileProtection
import Foundation
import KeychainCore
import TestSupport
import Testing

/// The lock states a keychain can be in, as far as protected files can tell.
enum LockState: String, CaseIterable, CustomStringConvertible {
    /// No passcode: every class is available.
    case noPasscode
    /// A passcode, and the keychain opened but never unlocked since.
    case beforeFirstUnlock
    /// A passcode, unlocked.
    case unlocked
    /// A passcode, unlocked once, then locked again.
    case lockedAfterFirstUnlock

    var description: String { rawValue }
}

/// A keychain on disk with its protected files directory beside it, with the cheapest Argon2id cost.
struct FileFixture {
    static let passcode = "1234"

    let directory: TemporaryDirectory
    let engine: Engine
    let files: ProtectedFiles

    /// A fresh keychain without a passcode.
    init(chunkByteCount: Int = ProtectedFiles.defaultChunkByteCount) throws {
        directory = try TemporaryDirectory()
        engine = try Self.openEngine(in: directory)
        files = try ProtectedFiles(backend: engine, chunkByteCount: chunkByteCount)
    }

    private init(directory: TemporaryDirectory, engine: Engine, chunkByteCount: Int) throws {
        self.directory = directory
        self.engine = engine
        files = try ProtectedFiles(backend: engine, chunkByteCount: chunkByteCount)
    }

    /// A keychain in `state`. For ``LockState/beforeFirstUnlock`` the keychain is reopened, as a restarted process
    /// (or a rebooted phone) would find it.
    init(_ state: LockState, chunkByteCount: Int = ProtectedFiles.defaultChunkByteCount) throws {
        let fresh = try FileFixture(chunkByteCount: chunkByteCount)
        guard state != .noPasscode else {
            self = fresh
            return
        }
        try fresh.engine.setPasscode(Self.passcode, current: nil)
        switch state {
        case .noPasscode, .unlocked:
            self = fresh
        case .lockedAfterFirstUnlock:
            fresh.engine.lock()
            self = fresh
        case .beforeFirstUnlock:
            self = try FileFixture(
                directory: fresh.directory, engine: try Self.openEngine(in: fresh.directory),
                chunkByteCount: chunkByteCount)
        }
    }

    /// The same keychain opened again (locked, before its first unlock, when it has a passcode).
    func reopened() throws -> FileFixture {
        try FileFixture(
            directory: directory, engine: try Self.openEngine(in: directory), chunkByteCount: files.chunkByteCount)
    }

    /// A file path in the fixture's directory (beside, not inside, the keychain).
    func file(_ name: String) -> URL { directory.file(name) }

    /// The names of the files beside the keychain (temporary files included).
    func entries() throws -> [String] {
        try directory.entries().filter { $0 != "keychain" }
    }

    private static func openEngine(in directory: TemporaryDirectory) throws -> Engine {
        try Engine(
            storage: .directory(directory.file("keychain")), options: EngineOptions(passcodeCost: .minimum))
    }
}

/// Deterministic test data: `count` bytes that differ from chunk to chunk.
func sampleData(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 10) &+ Int(seed)) })
}

/// The status of an operation expected to fail with a `FileProtectionError` (`nil` when it succeeds).
func status(_ body: () throws -> Void) -> Int32? {
    do {
        try body()
        return nil
    } catch let error as FileProtectionError {
        return error.status
    } catch {
        Issue.record("unexpected error type: \(error)")
        return 0
    }
}

/// The engine status of an operation expected to fail (`nil` when it succeeds).
func engineCode(_ body: () throws -> Void) -> EngineError.Code? {
    do {
        try body()
        return nil
    } catch let error as EngineError {
        return error.code
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// The error of an operation expected to fail.
func error(_ body: () throws -> Void) -> FileProtectionError? {
    do {
        try body()
        return nil
    } catch let error as FileProtectionError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

extension FileProtectionError {
    /// The `OSStatus` of `errSecInteractionNotAllowed`.
    static let lockedStatus = FileProtectionError.interactionNotAllowed.status
    /// The `OSStatus` of `errSecDecode`.
    static let decodeStatus = FileProtectionError.decode.status
}

/// The bytes of a file.
func bytes(of url: URL) throws -> Data {
    try Data(contentsOf: url)
}

/// A file's permission bits.
func mode(of url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Replaces a file's bytes in place, without the flush `Data.write(to:)` does (tests write thousands of
/// damaged copies).
func overwrite(_ url: URL, with data: Data) throws {
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    defer { close(descriptor) }
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == data.count else { throw CocoaError(.fileWriteUnknown) }
}
