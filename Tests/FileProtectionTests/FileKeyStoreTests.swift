import Foundation
import KeychainCore
import Testing

@Suite("The engine as the keybag of protected files (FileKeyStore)")
struct FileKeyStoreTests {
    @Test("Wrapped keys unwrap only with the same class, context and keybag")
    func binding() throws {
        let fixture = try FileFixture()
        let engine = fixture.engine
        let key = try SecretKey.random()
        for fileClass in FileKeyClass.allCases {
            let wrapped = try engine.wrapFileKey(key, for: fileClass, context: [1, 2, 3])
            #expect(try engine.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 3]).constantTimeEquals(key))
            #expect(
                engineCode { _ = try engine.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 4]) } == .decode)
            for other in FileKeyClass.allCases where other != fileClass {
                #expect(
                    engineCode { _ = try engine.unwrapFileKey(wrapped, for: other, context: [1, 2, 3]) } == .decode)
            }
            let stranger = try FileFixture().engine
            #expect(
                engineCode { _ = try stranger.unwrapFileKey(wrapped, for: fileClass, context: [1, 2, 3]) } == .decode)
            #expect(
                engineCode {
                    _ = try engine.unwrapFileKey(Data(wrapped.dropLast()), for: fileClass, context: [1, 2, 3])
                }
                    == .decode)
        }
        // Class B wraps to a fresh ephemeral key every time.
        #expect(
            try engine.wrapFileKey(key, for: .classB, context: []) != engine.wrapFileKey(key, for: .classB, context: [])
        )
    }

    @Test("Availability per class and lock state; class B wraps while locked but unwraps only while unlocked")
    func availability() throws {
        let fixture = try FileFixture(.beforeFirstUnlock)
        let engine = fixture.engine
        let key = try SecretKey.random()
        #expect(FileKeyClass.allCases.filter { engine.canOpenFiles(of: $0) } == [.classD])
        let sealedToB = try engine.wrapFileKey(key, for: .classB, context: [])
        #expect(engineCode { _ = try engine.wrapFileKey(key, for: .classA, context: []) } == .interactionNotAllowed)
        #expect(engineCode { _ = try engine.wrapFileKey(key, for: .classC, context: []) } == .interactionNotAllowed)
        #expect(
            engineCode { _ = try engine.unwrapFileKey(sealedToB, for: .classB, context: []) } == .interactionNotAllowed)
        try engine.unlock(passcode: FileFixture.passcode)
        #expect(FileKeyClass.allCases.filter { engine.canOpenFiles(of: $0) } == FileKeyClass.allCases)
        #expect(try engine.unwrapFileKey(sealedToB, for: .classB, context: []).constantTimeEquals(key))
        engine.lock()
        #expect(FileKeyClass.allCases.filter { engine.canOpenFiles(of: $0) } == [.classC, .classD])
    }

    @Test("Header tags: 32 bytes, stable per keybag, differ between keybags, checked in every lock state")
    func headerTags() throws {
        let fixture = try FileFixture(.beforeFirstUnlock)
        let engine = fixture.engine
        let header: [UInt8] = Array("a header".utf8)
        let tag = try engine.fileHeaderTag(for: header)
        #expect(tag.count == 32)
        #expect(try engine.isValidFileHeaderTag(tag, for: header))
        #expect(try !engine.isValidFileHeaderTag(tag, for: header + [0]))
        #expect(try !engine.isValidFileHeaderTag(tag.dropLast(), for: header))
        #expect(try FileFixture().engine.fileHeaderTag(for: header) != tag)
        #expect(try engine.keybagID() == engine.keybagStatus().keybagID)
    }
}
