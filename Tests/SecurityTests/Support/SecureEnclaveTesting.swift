import Foundation
import KeychainCore
import KeychainTPM
import Security
import TestSupport
import Testing

/// Why the Secure Enclave tests cannot run here, or `nil` when they can: they need swtpm, libtss2 and openssl.
let secureEnclaveSkipReason: String? =
    SoftwareTPM.unavailableReason
    ?? TPMContext.loadFailure().map { "skipped: the TPM software stack is not installed (libtss2-dev): \($0)" }
    ?? (OpenSSLCommand.isInstalled ? nil : "skipped: the openssl command is not installed")

/// What the Secure Enclave key tests share: Apple's parameters for such a key, its making and finding.
enum SecureEnclaveTesting {
    /// The DER SubjectPublicKeyInfo header of a P-256 key (id-ecPublicKey, prime256v1, a 66-byte BIT STRING).
    static let publicKeyInfoHeader = Data([
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ])

    /// Apple's parameters for a stored Secure Enclave key tagged `tag`.
    static func parameters(
        tag: String, type: CFString = kSecAttrKeyTypeECSECPrimeRandom, bits: Int = 256
    ) throws -> [String: Any] {
        let control = try #require(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, nil))
        return [
            kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8),
                kSecAttrAccessControl as String: control,
            ],
        ]
    }

    /// Makes a Secure Enclave key: the key, or the status and message of the failure.
    static func generate(_ parameters: [String: Any]) -> (key: SecKey?, status: Int?, message: String) {
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error)
        let failure = error.map { $0.takeRetainedValue() as Error as NSError }
        return (key, failure?.code, failure?.localizedDescription ?? "")
    }

    static func status(_ error: Unmanaged<CFError>?) -> Int? {
        error.map { ($0.takeRetainedValue() as Error as NSError).code }
    }

    /// The key tagged `tag`, found again as an app would (`kSecReturnRef`).
    static func find(_ tag: String) -> Outcome {
        copy([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true,
        ])
    }
}
