import KeychainTPM
import TestSupport
import Testing

@Suite(
    "TPM traffic", .enabled(if: TPMTests.available, TPMTests.skipComment))
struct BusListenerTests {
    @Test("attack: a listener on the TPM's wire sees neither a sealed secret, nor an authorization value, nor an HMAC")
    func listenerSeesNoSecret() throws {
        let tpm = try SoftwareTPM()
        let recorder = try TCPRecorder(relayingTo: tpm.port)
        let context = try TPMContext.open(tcti: "swtpm:host=127.0.0.1,port=\(recorder.port)")
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let auth = (0..<32).map { _ in UInt8.random(in: 1...255) }
        let data = Array("swift-keychain lookup hash of service and account".utf8)
        let blob = try context.seal(secret)
        #expect(try context.unseal(blob) == secret)
        let key = try context.createHMACKey(auth: auth)
        let mac = try context.hmac(key, auth: auth, data: data)
        let wire = recorder.recorded
        #expect(wire.count > 1000, "the relay saw \(wire.count) bytes: is the TPM reached through it?")
        // Each looked for as a Bool, so that a failure does not print the whole capture.
        let seen = [
            "the sealed secret": wire.contains(subsequence: secret),
            "the authorization value": wire.contains(subsequence: Array(auth.prefix(16))),
            "the HMAC's data": wire.contains(subsequence: Array(data.prefix(16))),
            "the HMAC": wire.contains(subsequence: Array(mac.prefix(16))),
        ]
        #expect(seen.filter(\.value).keys.sorted() == [], "crossed the wire in clear")
    }
}
