import Foundation
import KeychainCore
import Testing

@testable import KeychainKeys

/// Keys made, written and read back in Apple's external representations; keys that are not keys refused by name.
@Suite("Keys: generation and Apple's representations")
struct KeyRepresentationTests {
    @Test(
        "EC keys on each curve: X9.63 lengths, 04 first, the public half inside the private one, read back equal",
        arguments: AsymmetricKey.Curve.allCases)
    func ecRoundTrip(curve: AsymmetricKey.Curve) throws {
        let key = try AsymmetricKey.generateEC(curve)
        #expect(key.sizeInBits == curve.rawValue)
        let privateBytes = try key.externalRepresentation()
        let publicBytes = try key.publicRepresentation()
        #expect(privateBytes.count == 1 + 3 * curve.fieldBytes && publicBytes.count == 1 + 2 * curve.fieldBytes)
        #expect(privateBytes.first == 4 && privateBytes.prefix(publicBytes.count) == publicBytes)
        let read = try AsymmetricKey.importing(privateBytes, kind: .ec(curve), isPrivate: true)
        #expect(try read.externalRepresentation() == privateBytes)
        let publicKey = try AsymmetricKey.importing(publicBytes, kind: .ec(curve), isPrivate: false)
        #expect(!publicKey.isPrivate)
        #expect(try publicKey.externalRepresentation() == publicBytes)
        #expect(try key.publicKey().externalRepresentation() == publicBytes)
    }

    @Test("RSA keys: PKCS#1 DER both halves, read back equal, sizes from 1024 to 4096 only")
    func rsaRoundTrip() throws {
        let key = try AsymmetricKey.generateRSA(bits: 2048)
        #expect(key.sizeInBits == 2048 && key.blockSize == 256)
        let privateBytes = try key.externalRepresentation()
        let publicBytes = try key.publicRepresentation()
        #expect(privateBytes.first == 0x30 && publicBytes.first == 0x30)
        #expect(
            try AsymmetricKey.importing(privateBytes, kind: .rsa, isPrivate: true).externalRepresentation()
                == privateBytes)
        #expect(
            try AsymmetricKey.importing(publicBytes, kind: .rsa, isPrivate: false).externalRepresentation()
                == publicBytes)
        for bits in [512, 1000, 8192] {
            #expect(throws: EngineError.self) { try AsymmetricKey.generateRSA(bits: bits) }
        }
    }

    @Test("A point off the curve, a cut key, trailing bytes, mismatched halves: errSecParam, never a key")
    func refusals() throws {
        let key = try AsymmetricKey.generateEC(.p256)
        var offCurve = [UInt8](try key.publicRepresentation())
        offCurve[64] ^= 1  // the last byte of Y: the point leaves the curve
        let refused: [(Data, AsymmetricKey.Kind, Bool)] = [
            (Data(offCurve), .ec(.p256), false),
            (try key.publicRepresentation().dropLast(), .ec(.p256), false),
            (Data([4]) + Data(repeating: 0, count: 64), .ec(.p256), false),
            (try key.externalRepresentation() + Data([0]), .ec(.p256), true),
            (Data("not a key".utf8), .rsa, false),
            (try AsymmetricKey.generateRSA(bits: 1024).publicRepresentation() + Data([0]), .rsa, false),
        ]
        for (data, kind, isPrivate) in refused {
            #expect(throws: EngineError.self) { try AsymmetricKey.importing(data, kind: kind, isPrivate: isPrivate) }
        }
        // A private scalar that is not the public point's.
        var mismatched = [UInt8](try key.externalRepresentation())
        mismatched[mismatched.count - 1] ^= 1
        let error = #expect(throws: EngineError.self) {
            try AsymmetricKey.importing(Data(mismatched), kind: .ec(.p256), isPrivate: true)
        }
        #expect(error?.code == .param)
    }
}
