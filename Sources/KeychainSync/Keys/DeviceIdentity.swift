import Foundation
import KeychainCore

/// This device's identity: its X25519 and Ed25519 key pairs. In the sync state, their private halves are wrapped
/// under the keychain's class keys (issue 21, item 2), as iOS keeps its sync keys in the keybag: the signing seed
/// under `ck` (this device writes, and opens `ck` items, from the first unlock on), the agreement key under `ak`
/// (it opens the epoch keys shared with this device, so only while unlocked). A copy of the sync state and the
/// device key, without the passcode, opens neither.
struct DeviceIdentity: Sendable {
    let publicIdentity: PublicIdentity
    let signing: SigningKeyPair

    var name: String { publicIdentity.name }

    /// A new identity, with its agreement key pair (whose private half the caller wraps and forgets).
    static func generate(name: String) throws(SyncError) -> (DeviceIdentity, KeyAgreementKeyPair) {
        try keychain("cannot generate the device's sync keys") {
            () throws(EngineError) -> (DeviceIdentity, KeyAgreementKeyPair) in
            let agreement = try KeyAgreementKeyPair.generate()
            let signing = try SigningKeyPair.generate()
            let identity = PublicIdentity(
                agreementKey: agreement.publicKey, signingKey: signing.publicKey, name: name)
            return (DeviceIdentity(publicIdentity: identity, signing: signing), agreement)
        }
    }

    /// The sync state's first form kept both private keys wrapped by the device key alone: opened once to move
    /// them under the class keys (``SyncKeyVault/upgrade(from:)``).
    static func unwrapFirstForm(
        agreement: Data, signing: Data, name: String, in directory: URL
    ) throws(SyncError) -> (DeviceIdentity, KeyAgreementKeyPair) {
        do {
            let agreementKey = try DeviceKeyWrapping.unwrap(
                agreement, purpose: "sync x25519 private key", in: directory)
            let seed = try DeviceKeyWrapping.unwrap(signing, purpose: "sync ed25519 seed", in: directory)
            let pair = try KeyAgreementKeyPair(privateKey: agreementKey)
            let signingPair = try SigningKeyPair(seed: seed)
            let identity = PublicIdentity(agreementKey: pair.publicKey, signingKey: signingPair.publicKey, name: name)
            return (DeviceIdentity(publicIdentity: identity, signing: signingPair), pair)
        } catch {
            throw SyncError(
                .damaged,
                "the sync keys in \(directory.path) do not open with this keychain's device key: \(error.message)")
        }
    }
}
