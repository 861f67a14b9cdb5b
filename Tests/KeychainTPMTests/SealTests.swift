import KeychainTPM
import TestSupport
import Testing

@Suite(
    "TPM sealing", .enabled(if: TPMTests.available, TPMTests.skipComment))
struct SealTests {
    @Test("a secret sealed to the TPM unseals to the same bytes, and the blob survives serialization")
    func roundTrip() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let blob = try context.seal(secret)
        #expect(!blob.serialized().contains(subsequence: secret))
        let read = try TPMBlob(serialized: blob.serialized())
        #expect(try context.unseal(read) == secret)
        // A second connection to the same TPM derives the same primary key and opens the blob too.
        let reopened = try TPMContext.open(tcti: tpm.tcti)
        #expect(try reopened.unseal(read) == secret)
    }

    @Test("attack: a blob sealed on one TPM does not unseal on another")
    func foreignTPM() throws {
        let first = try SoftwareTPM()
        let second = try SoftwareTPM()
        let blob = try TPMContext.open(tcti: first.tcti).seal(Array("the device key".utf8))
        let other = try TPMContext.open(tcti: second.tcti)
        let error = #expect(throws: TPMError.self) { try other.unseal(blob) }
        #expect(error?.code == .foreignBlob, "\(String(describing: error))")
    }

    @Test("attack: a blob with one bit of its private area flipped is refused by the TPM")
    func alteredBlob() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        var bytes = try context.seal(Array("secret".utf8)).serialized()
        bytes[bytes.count - 5] ^= 0x01
        let error = #expect(throws: TPMError.self) { try context.unseal(try TPMBlob(serialized: bytes)) }
        #expect(error?.code == .foreignBlob, "\(String(describing: error))")
    }

    @Test("bytes that are not a blob are refused before the TPM, naming what is wrong")
    func malformedBlob() throws {
        #expect(throws: TPMError.self) { try TPMBlob(serialized: Array("SKDK".utf8)) }
        let error = #expect(throws: TPMError.self) { try TPMBlob(serialized: Array("STPM".utf8) + [9, 1, 0, 0, 0, 0]) }
        #expect(error?.message.contains("version 9") == true)
    }

    @Test("without a TPM at the TCTI, opening fails saying no TPM answers")
    func noTPM() throws {
        let tpm = try SoftwareTPM()
        let tcti = tpm.tcti
        tpm.stop()
        let error = #expect(throws: TPMError.self) { try TPMContext.open(tcti: tcti) }
        #expect(error?.code == .unavailable, "\(String(describing: error))")
        #expect(try TPMContext.open(environment: [TPMContext.environmentVariable: "none"]) == nil)
    }
}

extension Array where Element == UInt8 {
    /// Whether `subsequence` occurs in the array.
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<$0 + subsequence.count]) == subsequence }
    }
}
