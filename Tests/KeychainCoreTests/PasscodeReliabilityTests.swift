import Foundation
import Synchronization
import TestSupport
import Testing

@testable import KeychainCore

@Suite("Reliability: passcode attempts")
struct PasscodeReliabilityTests {
    @Test("Reliability 7: the right passcode is not refused after a later wrong attempt that finished first")
    func overlappingAttempts() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        let start = keychain.clock.now
        // Another process's wrong attempt starts after ours and ends first: it runs the moment ours reads the
        // clock to begin, and its clock is a second later.
        let other = try Engine(
            storage: .directory(keychain.directory.keychain),
            options: EngineOptions(passcodeCost: .minimum, now: { start.addingTimeInterval(1) }))
        let interleaved = Mutex(false)
        let ours = try Engine(
            storage: .directory(keychain.directory.keychain),
            options: EngineOptions(
                passcodeCost: .minimum,
                now: {
                    let first = interleaved.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { #expect(status { try other.unlock(passcode: "0000") } == .authFailed) }
                    return start
                }))
        try ours.unlock(passcode: "1234")
        #expect(try !ours.keybagStatus().isLocked)
        #expect(try ours.keybagStatus().failedAttempts == 0)
    }
}

@Suite("Reliability: key material in memory")
struct KeyMemoryTests {
    /// A copy of the `count` bytes of this thread's stack below the caller's frame: what the calls that returned
    /// before left there. Read through /proc/self/mem, so an unmapped page ends the copy instead of crashing.
    @inline(never)
    private func stackBelowCaller(_ count: Int) -> [UInt8] {
        var marker: UInt8 = 0
        let top = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        var bytes = [UInt8](repeating: 0, count: count)
        let descriptor = open("/proc/self/mem", O_RDONLY)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let read = bytes.withUnsafeMutableBytes { buffer in
            pread(descriptor, buffer.baseAddress, count, off_t(Int64(bitPattern: UInt64(top) - UInt64(count))))
        }
        return Array(bytes.prefix(max(read, 0)))
    }

    /// The passcode key and the KEK of a keychain with a passcode, derived as the keybag derives them (DESIGN §3).
    private func keyEncryptionKeys(_ keychain: TestKeychain, passcode: String) throws -> [(String, [UInt8])] {
        let directory = KeychainDirectory(url: keychain.directory.keychain)
        let record = try #require(try KeybagRecord.load(from: try Database(path: directory.databasePath)))
        let parameters = try #require(record.passcode)
        let deviceKey = try SecretKey(
            copying: try Data(contentsOf: URL(fileURLWithPath: directory.deviceKeyPath)).dropFirst(5))
        let passcodeKey = try PasscodeHash.deriveKey(
            passcode: try Passcode(copying: passcode), salt: parameters.salt, cost: parameters.cost)
        let kek = try KeyedHash.deriveKey(from: deviceKey, context: "swift-keychain kek v1", secretInput: passcodeKey)
        return [
            ("passcode key", passcodeKey.withUnsafeBytes { Array($0) }), ("KEK", kek.withUnsafeBytes { Array($0) }),
        ]
    }

    /// Binds the functions the copy calls before the code under test runs: the dynamic linker's lazy binding saves
    /// every vector register on the stack, and registers may still hold what the last primitive computed (a
    /// leftover of the register file, not of the code under test).
    private func warmUp() {
        _ = stackBelowCaller(1024)
    }

    /// Whether `key` occurs in `bytes`.
    private func contains(_ key: [UInt8], in bytes: [UInt8]) -> Bool {
        bytes.indices.dropLast(key.count).contains { bytes[$0..<$0 + key.count].elementsEqual(key) }
    }

    @Test("Reliability 10: stretching a passcode leaves no copy of the passcode key on the stack")
    func stretchingLeavesNoCopy() throws {
        let parameters = KeybagRecord.Passcode(salt: try RandomBytes.make(count: 16), cost: .minimum)
        warmUp()
        let stretched = try StretchedPasscode(try Passcode(copying: "1234"), parameters: parameters)
        let stack = stackBelowCaller(256 * 1024)
        try #require(stack.count > 64 * 1024, "the stack could not be read")
        let leaked = contains(stretched.key.withUnsafeBytes { Array($0) }, in: stack)
        #expect(!leaked, "a copy of the passcode key is left on the stack")
    }

    @Test(
        "Reliability 10: deriving a key from a passcode alone (as a backup archive does) leaves no copy of it on the stack"
    )
    func passcodeDerivationLeavesNoCopy() throws {
        let salt = try RandomBytes.make(count: PasscodeHash.saltByteCount)
        warmUp()
        let key = try PasscodeHash.deriveKey(passcode: try Passcode(copying: "backup"), salt: salt, cost: .minimum)
        let stack = stackBelowCaller(256 * 1024)
        try #require(stack.count > 64 * 1024, "the stack could not be read")
        let leaked = contains(key.withUnsafeBytes { Array($0) }, in: stack)
        #expect(!leaked, "a copy of the derived key is left on the stack")
    }

    @Test("Reliability 10: the KEK and the passcode key it comes from do not survive lock() on the stack")
    func keyEncryptionKeyLeavesNoCopy() throws {
        let keychain = try TestKeychain()
        try keychain.engine.setPasscode("1234", current: nil)
        try keychain.engine.addPassword("a", "1")
        let engine = try keychain.reopen()
        warmUp()
        // Nothing between unlocking and the copy: a later call could overwrite a leftover by chance.
        try engine.unlock(passcode: "1234")
        engine.lock()
        let stack = stackBelowCaller(256 * 1024)
        try #require(stack.count > 64 * 1024, "the stack could not be read")
        for (name, key) in try keyEncryptionKeys(keychain, passcode: "1234") {
            let leaked = contains(key, in: stack)
            #expect(!leaked, "a copy of the \(name) is left on the stack after lock()")
        }
        try engine.unlock(passcode: "1234")
        #expect(try engine.password("a") == "1")
    }
}
