import Foundation
import KeychainCore
import KeychainKeys
import KeychainTPM

#if canImport(Glibc)
    import Glibc
#endif

/// A P-256 signature by a Secure Enclave key (in the TPM) beside one by a software key, and an unlock with a
/// TPM-sealed device key beside one with a file device key; the signatures both as stored keys through the key layer (``KeyUsePerformer``, what the keychain runs for `SecKeyCreateSignature`), taking turns.
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
        /// Unlock (standard Argon2id cost, median of 3) of a keychain whose device key the TPM seals and whose
        /// passcode is entangled with it, beside one with a file device key, in the same run.
        var tpm_unlock_ms: Double?
        var file_unlock_ms: Double?
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
            let fileUnlock = try measureUnlock()
            let tpmUnlock = try DeviceKeyTPM.$tcti.withValue(tcti) { try measureUnlock() }
            return Result(
                tpm: name, tpm_sign_p50_us: inTPM.figures.p50_us, software_sign_p50_us: inSoftware.figures.p50_us,
                tpm_unlock_ms: tpmUnlock, file_unlock_ms: fileUnlock)
        }
    }

    /// The figures as the report prints them, each beside its software twin, or why they were skipped.
    static func lines(_ result: Result?) -> [String] {
        guard let result else { return [] }
        var lines: [String] = []
        if let inTPM = result.tpm_sign_p50_us, let software = result.software_sign_p50_us {
            let note =
                result.tpm == "swtpm"
                ? " (swtpm: a software TPM on this CPU over TCP, not a real one — a discrete TPM chip is usually "
                    + "slower still at ECC, a firmware TPM closer; each use is a salted session, a load and the "
                    + "signature)" : ""
            lines.append(
                String(
                    format:
                        "key P-256 sign in the TPM (%@): p50 %.1f µs beside a software key %.1f µs: %.1f× its time%@",
                    result.tpm, inTPM, software, software > 0 ? inTPM / software : 0, note))
        }
        if let inTPM = result.tpm_unlock_ms, let file = result.file_unlock_ms {
            lines.append(
                String(
                    format:
                        "unlock with the device key sealed by the TPM (%@, passcode entangled): %.1f ms beside a file "
                        + "device key %.1f ms: %.2f× its time",
                    result.tpm, inTPM, file, file > 0 ? inTPM / file : 0))
        }
        if let skipped = result.skipped { lines.append("TPM figures: skipped (\(skipped))") }
        return lines
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
