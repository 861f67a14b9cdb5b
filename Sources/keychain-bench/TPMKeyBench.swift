import Foundation
import KeychainCore
import KeychainKeys
import KeychainTPM

#if canImport(Glibc)
    import Glibc
#endif

/// A P-256 signature by a Secure Enclave key (in the TPM) beside one by a software key, both as stored keys through
/// the key layer (``KeyUsePerformer``, what the keychain runs for `SecKeyCreateSignature`), taking turns.
///
/// The TPM is the one `KEYCHAIN_TPM` names when it is set, else a software TPM (Debian's swtpm) started for the run
/// on the loopback interface and killed at the end; without either the figure is skipped, saying why. swtpm is not a
/// real TPM (software on this CPU, over TCP; a discrete TPM chip is usually slower at ECC): the ratio is this run's.
enum TPMKeyBench {
    /// The figures, named as in the JSON report.
    struct Result: Codable {
        /// Which TPM: `swtpm` or the TCTI `KEYCHAIN_TPM` names.
        var tpm: String
        var tpm_sign_p50_us: Double?
        var software_sign_p50_us: Double?
        /// Why the figures are absent.
        var skipped: String?
    }

    static let swtpm = "/usr/bin/swtpm"

    /// Runs the comparison, or says why it cannot run here.
    static func run(operations count: Int = 60) throws -> Result {
        if let failure = TPMContext.loadFailure() {
            return Result(tpm: "none", skipped: "the TPM software stack (libtss2) is not installed: \(failure)")
        }
        if let named = ProcessInfo.processInfo.environment[TPMContext.environmentVariable], named != "none" {
            return try measure(tcti: named, name: named, count: count)
        }
        guard FileManager.default.isExecutableFile(atPath: swtpm) else {
            return Result(
                tpm: "none",
                skipped: "no TPM: \(swtpm) is not installed and \(TPMContext.environmentVariable) names none")
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, tcti) = try startSoftwareTPM(in: directory)
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        return try measure(tcti: tcti, name: "swtpm", count: count)
    }

    private static func measure(tcti: String, name: String, count: Int) throws -> Result {
        try SecureEnclave.$tcti.withValue(tcti) {
            let performer = KeyUsePerformer()
            func privateItem(token: Bool) -> NewItem {
                var attributes: ItemAttributes = [.keyClass: .integer(CredentialAttributes.privateKeyClass)]
                if token { attributes[.tokenID] = .string(SecureEnclave.tokenID) }
                return NewItem(itemClass: .key, attributes: attributes)
            }
            let keys = try [true, false].map { (token) throws -> NewItem in
                let generation = KeyGeneration(
                    keyType: CredentialAttributes.ellipticCurveType, sizeInBits: 256,
                    privateKey: privateItem(token: token), publicKey: nil)
                guard let item = try performer.generate(generation).first else { throw BenchError("no key made") }
                return item
            }
            let use = KeyUse(
                .sign, algorithm: "algid:sign:ECDSA:message-X962:SHA256", input: Data(repeating: 0x42, count: 64))
            var inTPM = LatencyRecorder(capacity: count)
            var inSoftware = LatencyRecorder(capacity: count)
            // One of each first, not counted: the TPM's connection and primary key are made on first use.
            for key in keys { _ = try performer.perform(use, key: key.data, attributes: key.attributes) }
            for _ in 0..<count {
                try inTPM.time { _ = try performer.perform(use, key: keys[0].data, attributes: keys[0].attributes) }
                try inSoftware.time {
                    _ = try performer.perform(use, key: keys[1].data, attributes: keys[1].attributes)
                }
            }
            return Result(
                tpm: name, tpm_sign_p50_us: inTPM.figures.p50_us, software_sign_p50_us: inSoftware.figures.p50_us)
        }
    }

    /// Starts swtpm on a free pair of loopback ports with its state in `directory`; the process and its TCTI once
    /// a connection succeeds.
    private static func startSoftwareTPM(in directory: URL) throws -> (Process, String) {
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: swtpm)
            process.arguments = [
                "socket", "--tpm2", "--tpmstate", "dir=\(directory.path)",
                "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
                "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1", "--flags", "not-need-init,startup-clear",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let tcti = "swtpm:host=127.0.0.1,port=\(port)"
            for _ in 0..<200 where process.isRunning {
                if (try? TPMContext.open(tcti: tcti)) != nil { return (process, tcti) }
                Thread.sleep(forTimeInterval: 0.025)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        throw BenchError("swtpm did not start on the loopback interface")
    }
}
