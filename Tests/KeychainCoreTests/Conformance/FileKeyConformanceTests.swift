import Foundation
import Testing

@testable import KeychainCore

/// The file-key operations protected files use, which every ``KeychainBackend`` must keep (the conformance suite,
/// file-key part).
@Suite("Backend conformance: file keys")
struct FileKeyConformanceTests {
    @Test("Wrapped keys unwrap only with the same class, context and keybag", arguments: BackendFactory.all)
    func binding(_ factory: BackendFactory) throws {
        let backend = try factory.open().backend
        let stranger = try factory.open().backend
        let key = try SecretKey.random()
        for fileClass in FileKeyClass.allCases {
            let wrapped = try backend.wrapFileKey(key, for: fileClass, context: [1, 2, 3])
            #expect(try backend.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 3]).constantTimeEquals(key))
            #expect(status { _ = try backend.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 4]) } == .decode)
            for other in FileKeyClass.allCases where other != fileClass {
                #expect(status { _ = try backend.unwrapFileKey(wrapped, for: other, context: [1, 2, 3]) } == .decode)
            }
            #expect(status { _ = try stranger.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 3]) } == .decode)
            #expect(
                status { _ = try backend.unwrapFileKey(Data(wrapped.dropLast()), for: fileClass, context: [1, 2, 3]) }
                    == .decode)
        }
        // Class B wraps to a fresh ephemeral key every time.
        #expect(
            try backend.wrapFileKey(key, for: .classB, context: [])
                != backend.wrapFileKey(key, for: .classB, context: [])
        )
    }

    @Test(
        "Availability per class and lock state; class B wraps while locked but unwraps only while unlocked",
        arguments: BackendFactory.all)
    func availability(_ factory: BackendFactory) throws {
        let keychain = try factory.open()
        let key = try SecretKey.random()
        try keychain.backend.setPasscode("1234", current: nil)
        #expect(FileKeyClass.allCases.filter { keychain.backend.canOpenFiles(of: $0) } == FileKeyClass.allCases)
        // Before the first unlock only class D opens; class B still wraps.
        let backend: any KeychainBackend
        if let reopened = try keychain.reopen?() {
            #expect(FileKeyClass.allCases.filter { reopened.canOpenFiles(of: $0) } == [.classD])
            #expect(status { _ = try reopened.wrapFileKey(key, for: .classC, context: []) } == .interactionNotAllowed)
            try reopened.unlock(passcode: "1234")
            backend = reopened
        } else {
            backend = keychain.backend
        }
        try backend.lock()
        #expect(FileKeyClass.allCases.filter { backend.canOpenFiles(of: $0) } == [.classC, .classD])
        let sealedToB = try backend.wrapFileKey(key, for: .classB, context: [])
        #expect(status { _ = try backend.wrapFileKey(key, for: .classA, context: []) } == .interactionNotAllowed)
        #expect(
            status { _ = try backend.unwrapFileKey(sealedToB, for: .classB, context: []) } == .interactionNotAllowed)
        let wrappedC = try backend.wrapFileKey(key, for: .classC, context: [])
        #expect(try backend.unwrapFileKey(wrappedC, for: .classC, context: []).constantTimeEquals(key))
        try backend.unlock(passcode: "1234")
        #expect(FileKeyClass.allCases.filter { backend.canOpenFiles(of: $0) } == FileKeyClass.allCases)
        #expect(try backend.unwrapFileKey(sealedToB, for: .classB, context: []).constantTimeEquals(key))
    }

    @Test(
        "Header tags: 32 bytes, stable per keybag, differ between keybags, checked in every lock state",
        arguments: BackendFactory.all)
    func headerTags(_ factory: BackendFactory) throws {
        let backend = try factory.open().backend
        try backend.setPasscode("1234", current: nil)
        try backend.lock()
        let header: [UInt8] = Array("a header".utf8)
        let tag = try backend.fileHeaderTag(for: header)
        #expect(tag.count == 32)
        #expect(try backend.fileHeaderTag(for: header) == tag)
        #expect(try backend.isValidFileHeaderTag(tag, for: header))
        #expect(try !backend.isValidFileHeaderTag(tag, for: header + [0]))
        #expect(try !backend.isValidFileHeaderTag(tag.dropLast(), for: header))
        #expect(try factory.open().backend.fileHeaderTag(for: header) != tag)
    }
}
