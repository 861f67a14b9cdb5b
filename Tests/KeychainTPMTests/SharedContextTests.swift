import KeychainTPM
import TestSupport
import Testing

@Suite("One kept TPM connection per TCTI", .enabled(if: TPMTests.available, TPMTests.skipComment))
struct SharedContextTests {
    @Test("the same TCTI gives the same connection until it is forgotten; then a new one that works")
    func keptAndForgotten() throws {
        let tpm = try SoftwareTPM()
        let other = try SoftwareTPM()
        let sealed: SealedBlob
        do {
            let first = try TPMContext.shared(tcti: tpm.tcti)
            #expect(try TPMContext.shared(tcti: tpm.tcti) === first)
            #expect(try TPMContext.shared(tcti: other.tcti) !== first)
            sealed = try first.seal(Array("kept".utf8))
            TPMContext.forget(first)
            // Released here: a software TPM serves one connection at a time, so the next must not meet this one.
        }
        let fresh = try TPMContext.shared(tcti: tpm.tcti)
        #expect(try fresh.unseal(sealed) == Array("kept".utf8))
        #expect(try TPMContext.shared(tcti: tpm.tcti) === fresh)
    }
}
