import FileProtection
import Foundation
import Testing

@Suite("Foundation's spellings: createFile, Data.write, FileProtectionType and the class names")
struct FoundationConveniencesTests {
    @Test("The class names are Foundation's, and convert both ways")
    func names() throws {
        #expect(
            FileProtectionClass.allCases.map(\.rawValue) == [
                "none", "complete", "completeUnlessOpen", "completeUntilFirstUserAuthentication",
            ])
        for protection in FileProtectionClass.allCases {
            #expect(FileProtectionClass(protection.fileProtectionType) == protection)
            #expect(FileProtectionClass(rawValue: protection.description) == protection)
        }
        #expect(FileProtectionClass(FileProtectionType.complete) == .complete)
        #expect(FileProtectionClass(FileProtectionType(rawValue: "NSFileProtectionSomethingElse")) == nil)
        #expect(FileProtectionClass.default == .completeUntilFirstUserAuthentication)
        #expect(try FileProtectionClass(named: "completeUnlessOpen") == .completeUnlessOpen)
        let failure = error { _ = try FileProtectionClass(named: "Complete") }
        #expect(failure?.status == FileProtectionError.param.status)
        #expect(failure?.message.contains("\"Complete\"") == true)
        #expect(failure?.message.contains("completeUntilFirstUserAuthentication") == true)
    }

    @Test("Writing options name the class; none names the default")
    func writingOptions() throws {
        #expect(FileProtectionClass(Data.WritingOptions.completeFileProtection) == .complete)
        #expect(FileProtectionClass(Data.WritingOptions.completeFileProtectionUnlessOpen) == .completeUnlessOpen)
        #expect(
            FileProtectionClass(Data.WritingOptions.completeFileProtectionUntilFirstUserAuthentication)
                == .completeUntilFirstUserAuthentication)
        #expect(FileProtectionClass(Data.WritingOptions.noFileProtection) == FileProtectionClass.none)
        #expect(FileProtectionClass(Data.WritingOptions.atomic) == .default)
        #expect(FileProtectionClass(Data.WritingOptions(rawValue: 0x5000_0000)) == nil)
    }

    @Test("createFile(atPath:contents:attributes:) honours .protectionKey and answers false for what it cannot do")
    func createFile() throws {
        let fixture = try FileFixture(.unlocked)
        let path = fixture.file("created").path
        #expect(
            fixture.files.createFile(
                atPath: path, contents: Data("hi".utf8), attributes: [.protectionKey: FileProtectionType.complete]))
        #expect(try fixture.files.protection(of: fixture.file("created")) == .complete)
        #expect(try fixture.files.contents(of: fixture.file("created")) == Data("hi".utf8))
        #expect(
            fixture.files.createFile(
                atPath: path, contents: nil, attributes: [.protectionKey: "NSFileProtectionCompleteUnlessOpen"]))
        #expect(try fixture.files.protection(of: fixture.file("created")) == .completeUnlessOpen)
        #expect(try fixture.files.contents(of: fixture.file("created")).isEmpty)
        #expect(fixture.files.createFile(atPath: fixture.file("default").path, contents: Data("d".utf8)))
        #expect(try fixture.files.protection(of: fixture.file("default")) == .default)
        #expect(!fixture.files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        #expect(!fixture.files.createFile(atPath: path, contents: nil, attributes: [.protectionKey: 42]))
        fixture.engine.lock()
        #expect(
            !fixture.files.createFile(
                atPath: fixture.file("locked").path, contents: Data(),
                attributes: [.protectionKey: FileProtectionType.complete]))
        #expect(!FileManager.default.fileExists(atPath: fixture.file("locked").path))
    }

    @Test("Data.write(to:options:protectedBy:) takes the class from the options and honours .withoutOverwriting")
    func dataWrite() throws {
        let fixture = try FileFixture()
        let url = fixture.file("data")
        try Data("one".utf8).write(to: url, options: [.atomic, .completeFileProtection], protectedBy: fixture.files)
        #expect(try fixture.files.protection(of: url) == .complete)
        try Data("two".utf8).write(to: url, options: .noFileProtection, protectedBy: fixture.files)
        #expect(try fixture.files.protection(of: url) == FileProtectionClass.none)
        #expect(try fixture.files.contents(of: url) == Data("two".utf8))
        #expect(throws: FileProtectionError.duplicateItem) {
            try Data("three".utf8).write(to: url, options: .withoutOverwriting, protectedBy: fixture.files)
        }
        #expect(try fixture.files.contents(of: url) == Data("two".utf8))
        try Data("new".utf8).write(to: fixture.file("new"), options: .withoutOverwriting, protectedBy: fixture.files)
        #expect(try fixture.files.protection(of: fixture.file("new")) == .default)
        #expect(throws: FileProtectionError.param) {
            try Data().write(to: url, options: Data.WritingOptions(rawValue: 0x5000_0000), protectedBy: fixture.files)
        }
        #expect(try fixture.entries() == ["data", "new"])
    }
}
