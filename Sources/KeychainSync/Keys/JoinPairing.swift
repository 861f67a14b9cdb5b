import Foundation
import KeychainCore

/// The join code a person compares (issue 21, item 6): a short authentication string over both devices' keys and
/// a nonce from each, fixed by commit-then-reveal.
///
/// The joining device publishes a commitment to its nonce with its request; a member answers with its own nonce
/// (pinning the commitment it answered); only then does the joining device reveal its nonce and show the code,
/// which the user types on the member. A store in the middle must commit to its own request's nonce before it
/// learns the member's, and cannot change it after: each attempt is one online guess at a 50-bit code, never an
/// offline search.
enum JoinPairing {
    /// A fresh nonce (32 random bytes).
    static func nonce() throws(SyncError) -> Data {
        try keychain("cannot make a pairing nonce") { () throws(EngineError) -> Data in
            Data(try RandomBytes.make(count: 32))
        }
    }

    /// The commitment a join request carries.
    static func commitment(to nonce: Data) throws(SyncError) -> Data {
        try PublicDigest.digest("swift-keychain sync join commitment", nonce, byteCount: 32)
    }

    /// The code both devices show: `characters` characters of a digest of the joiner's and the member's keys and
    /// both nonces, in groups of five.
    static func code(
        joiner: PublicIdentity, member: PublicIdentity, joinerNonce: Data, memberNonce: Data, characters: Int
    ) throws(SyncError) -> String {
        let input =
            joiner.agreementKey + joiner.signingKey + member.agreementKey + member.signingKey + joinerNonce
            + memberNonce
        let digest = try PublicDigest.digest("swift-keychain sync join code v2", input, byteCount: 16)
        return PublicIdentity.base32(digest, characters: characters)
    }
}
