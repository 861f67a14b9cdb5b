import Foundation
import KeychainTPM
import TestSupport
import Testing

@Suite(
    "TPM HMAC keys and the dictionary-attack lockout",
    .enabled(if: TPMTests.available, TPMTests.skipComment))
struct HMACTests {
    private let auth = Array("correct horse battery staple".utf8)

    @Test("an HMAC key inside the TPM gives the same HMAC for the same data, and another key another")
    func deterministic() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let key = try context.createHMACKey(auth: auth)
        let data = Array("service\u{0}account".utf8)
        let first = try context.hmac(key, auth: auth, data: data)
        #expect(first.count == 32)
        #expect(try context.hmac(key, auth: auth, data: data) == first)
        let reread = try TPMBlob(serialized: key.serialized())
        #expect(try TPMContext.open(tcti: tpm.tcti).hmac(reread, auth: auth, data: data) == first)
        #expect(try context.hmac(key, auth: auth, data: data + [0]) != first)
        let other = try context.createHMACKey(auth: auth)
        #expect(try context.hmac(other, auth: auth, data: data) != first)
    }

    @Test("attack: a wrong authorization value is refused, and reported as such")
    func wrongAuth() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let key = try context.createHMACKey(auth: auth)
        let error = #expect(throws: TPMError.self) {
            try context.hmac(key, auth: Array("wrong horse battery staple".utf8), data: [1, 2, 3])
        }
        #expect(error?.code == .authorizationFailed, "\(String(describing: error))")
        #expect(try context.hmac(key, auth: auth, data: [1, 2, 3]).count == 32)
    }

    @Test("attack: repeated wrong authorization values put the TPM in lockout, which refuses the right one too")
    func lockout() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        try context.setDictionaryAttackParameters(maximumTries: 3, recoveryTime: 1000, lockoutRecovery: 1000)
        let key = try context.createHMACKey(auth: auth)
        var refusals: [TPMError.Code] = []
        for guess in 0..<6 {
            do {
                _ = try context.hmac(key, auth: Array("guess \(guess)".utf8), data: [1])
                Issue.record("the TPM accepted a wrong authorization value")
            } catch {
                refusals.append(error.code)
            }
        }
        #expect(
            refusals == [
                .authorizationFailed, .authorizationFailed, .authorizationFailed, .lockout, .lockout, .lockout,
            ])
        let locked = #expect(throws: TPMError.self) { try context.hmac(key, auth: auth, data: [1]) }
        #expect(locked?.code == .lockout, "\(String(describing: locked))")
        #expect(locked?.message.contains("lockout") == true)
        // The TPM itself says it is locked out (tpm2-tools, another client of the same TPM).
        if let report = try? StressProcess.runExecutable(
            URL(fileURLWithPath: "/usr/bin/tpm2_getcap"), ["-T", tpm.tcti, "properties-variable"])
        {
            #expect(
                report.output.contains("inLockout:                 1") || report.output.contains("inLockout: 1"),
                "\(report.output)")
        }
        try context.resetDictionaryAttackLockout()
        #expect(try context.hmac(key, auth: auth, data: [1]).count == 32)
    }

    @Test("a key blob of another kind is refused before it reaches the TPM")
    func wrongKind() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let sealed = try context.seal([1, 2, 3])
        let error = #expect(throws: TPMError.self) { try context.hmac(sealed, auth: [], data: [1]) }
        #expect(error?.code == .invalidBlob, "\(String(describing: error))")
    }
}
