import Foundation
import KeychainCore

/// This device's identity: its X25519 and Ed25519 key pairs, whose private halves are kept wrapped by the
/// keychain's device key (DESIGN §3) in the sync state.
struct DeviceIdentity: Sendable {
    let agreement: KeyAgreementKeyPair
    let signing: SigningKeyPair
    let name: String

    /// A new identity.
    static func generate(name: String) throws(SyncError) -> DeviceIdentity {
        try keychain("cannot generate the device's sync keys") { () throws(EngineError) -> DeviceIdentity in
            DeviceIdentity(agreement: try .generate(), signing: try .generate(), name: name)
        }
    }

    /// The public half.
    var publicIdentity: PublicIdentity {
        PublicIdentity(agreementKey: agreement.publicKey, signingKey: signing.publicKey, name: name)
    }

    /// The private keys wrapped by the device key of the keychain in `directory`.
    func wrapped(in directory: URL) throws(SyncError) -> (agreement: Data, signing: Data) {
        try keychain("cannot wrap the device's sync keys") { () throws(EngineError) -> (Data, Data) in
            (
                try DeviceKeyWrapping.wrap(agreement.privateKey, purpose: Self.agreementPurpose, in: directory),
                try DeviceKeyWrapping.wrap(signing.seed, purpose: Self.signingPurpose, in: directory)
            )
        }
    }

    /// Opens the private keys wrapped by ``wrapped(in:)``.
    static func unwrap(
        agreement: Data, signing: Data, name: String, in directory: URL
    ) throws(SyncError) -> DeviceIdentity {
        do {
            let agreementKey = try DeviceKeyWrapping.unwrap(agreement, purpose: agreementPurpose, in: directory)
            let seed = try DeviceKeyWrapping.unwrap(signing, purpose: signingPurpose, in: directory)
            return DeviceIdentity(
                agreement: try KeyAgreementKeyPair(privateKey: agreementKey), signing: try SigningKeyPair(seed: seed),
                name: name)
        } catch {
            throw SyncError(
                .damaged,
                "the sync keys in \(directory.path) do not open with this keychain's device key: \(error.message)")
        }
    }

    private static let agreementPurpose = "sync x25519 private key"
    private static let signingPurpose = "sync ed25519 seed"
}
