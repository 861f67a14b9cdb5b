import FileProtection
import Foundation
import Testing

@Suite("Every protection class in every lock state")
struct LockStateTests {
    /// Whether a class can create files in a state.
    static func canCreate(_ protection: FileProtectionClass, in state: LockState) -> Bool {
        switch protection {
        case .none, .completeUnlessOpen: true
        case .complete: state == .noPasscode || state == .unlocked
        case .completeUntilFirstUserAuthentication: state != .beforeFirstUnlock
        }
    }

    /// Whether a class can be read in a state.
    static func canRead(_ protection: FileProtectionClass, in state: LockState) -> Bool {
        switch protection {
        case .none: true
        case .complete, .completeUnlessOpen: state == .noPasscode || state == .unlocked
        case .completeUntilFirstUserAuthentication: state != .beforeFirstUnlock
        }
    }

    /// A keychain in `state` holding one file per class, written while every class was available.
    private func fixtureWithOneFilePerClass(_ state: LockState) throws -> (FileFixture, [FileProtectionClass: Data]) {
        let setup = try FileFixture(.unlocked)
        var contents: [FileProtectionClass: Data] = [:]
        for (index, protection) in FileProtectionClass.allCases.enumerated() {
            contents[protection] = sampleData(70_000 + index, seed: UInt8(index))
            try setup.files.write(
                contents[protection] ?? Data(), to: setup.file("existing-\(protection)"), protection: protection)
        }
        return (try move(setup, to: state), contents)
    }

    /// Takes an unlocked keychain with a passcode to `state`.
    private func move(_ setup: FileFixture, to state: LockState) throws -> FileFixture {
        switch state {
        case .noPasscode:
            try setup.engine.removePasscode(current: FileFixture.passcode)
            return setup
        case .unlocked:
            return setup
        case .lockedAfterFirstUnlock:
            setup.engine.lock()
            return setup
        case .beforeFirstUnlock:
            return try setup.reopened()
        }
    }

    @Test(
        "Reading follows the class: the wrong state is interaction-not-allowed and changes nothing",
        arguments: LockState.allCases)
    func reading(state: LockState) throws {
        let (fixture, contents) = try fixtureWithOneFilePerClass(state)
        for protection in FileProtectionClass.allCases {
            let url = fixture.file("existing-\(protection)")
            let before = try bytes(of: url)
            #expect(try fixture.files.protection(of: url) == protection, "the class is readable in every state")
            if Self.canRead(protection, in: state) {
                #expect(try fixture.files.contents(of: url) == contents[protection], "\(protection) in \(state)")
            } else {
                let failure = error { _ = try fixture.files.contents(of: url) }
                #expect(failure?.status == FileProtectionError.lockedStatus, "\(protection) in \(state)")
                #expect(failure?.message.contains(url.path) == true, "the message names the file")
                #expect(
                    status { _ = try fixture.files.reader(from: url) } == FileProtectionError.lockedStatus)
                #expect(
                    status { try fixture.files.unprotect(contentsOf: url, to: fixture.file("plain")) }
                        == FileProtectionError.lockedStatus)
                #expect(!FileManager.default.fileExists(atPath: fixture.file("plain").path))
            }
            #expect(try bytes(of: url) == before, "reading never changes the file")
        }
        #expect(try fixture.entries().allSatisfy { $0.hasPrefix("existing-") }, "no temporary file is left")
    }

    @Test(
        "Creating and replacing follow the class; a refused write leaves the file as it was",
        arguments: LockState.allCases)
    func writing(state: LockState) throws {
        let (fixture, _) = try fixtureWithOneFilePerClass(state)
        let replacement = sampleData(1000, seed: 99)
        for protection in FileProtectionClass.allCases {
            let new = fixture.file("new-\(protection)")
            let existing = fixture.file("existing-\(protection)")
            let before = try bytes(of: existing)
            if Self.canCreate(protection, in: state) {
                try fixture.files.write(replacement, to: new, protection: protection)
                try fixture.files.write(replacement, to: existing, protection: protection)
                #expect(try fixture.files.protection(of: new) == protection)
                #expect(try bytes(of: existing) != before, "\(protection) in \(state): replaced")
            } else {
                let failure = error { try fixture.files.write(replacement, to: new, protection: protection) }
                #expect(failure?.status == FileProtectionError.lockedStatus, "\(protection) in \(state)")
                #expect(failure?.message.contains(new.path) == true)
                #expect(
                    status { try fixture.files.write(replacement, to: existing, protection: protection) }
                        == FileProtectionError.lockedStatus)
                #expect(
                    status { _ = try fixture.files.writer(to: new, protection: protection) }
                        == FileProtectionError.lockedStatus)
                #expect(!FileManager.default.fileExists(atPath: new.path), "\(protection) in \(state): not created")
                #expect(try bytes(of: existing) == before, "\(protection) in \(state): left as it was")
            }
        }
        #expect(
            try fixture.entries().allSatisfy { $0.hasPrefix("existing-") || $0.hasPrefix("new-") },
            "no temporary file is left")
    }

    @Test("After an unlock every class is readable again, with its contents intact", arguments: LockState.allCases)
    func unlockRestoresAccess(state: LockState) throws {
        let (fixture, contents) = try fixtureWithOneFilePerClass(state)
        if state != .noPasscode { try fixture.engine.unlock(passcode: FileFixture.passcode) }
        for protection in FileProtectionClass.allCases {
            #expect(try fixture.files.contents(of: fixture.file("existing-\(protection)")) == contents[protection])
        }
    }

    @Test("Changing a class needs the old class readable and the new one creatable", arguments: LockState.allCases)
    func changingClass(state: LockState) throws {
        let setup = try FileFixture(.unlocked)
        let classes = FileProtectionClass.allCases
        let pairs = classes.flatMap { from in classes.filter { $0 != from }.map { (from, $0) } }
        for (from, to) in pairs {
            try setup.files.write(sampleData(5000), to: setup.file("\(from)-\(to)"), protection: from)
        }
        let fixture = try move(setup, to: state)
        var expected: [String: FileProtectionClass] = [:]
        for (from, to) in pairs {
            let url = fixture.file("\(from)-\(to)")
            let before = try bytes(of: url)
            if Self.canRead(from, in: state) && Self.canCreate(to, in: state) {
                try fixture.files.setProtection(to, of: url)
                #expect(try fixture.files.protection(of: url) == to)
                expected[url.lastPathComponent] = to
            } else {
                #expect(
                    status { try fixture.files.setProtection(to, of: url) } == FileProtectionError.lockedStatus,
                    "\(from) → \(to) in \(state)")
                #expect(try bytes(of: url) == before, "\(from) → \(to) in \(state): left as it was")
                expected[url.lastPathComponent] = from
            }
        }
        if state != .noPasscode { try fixture.engine.unlock(passcode: FileFixture.passcode) }
        for (name, protection) in expected {
            #expect(try fixture.files.contents(of: fixture.file(name)) == sampleData(5000))
            #expect(try fixture.files.protection(of: fixture.file(name)) == protection)
        }
        #expect(try fixture.entries().count == pairs.count, "no temporary file is left")
    }
}
