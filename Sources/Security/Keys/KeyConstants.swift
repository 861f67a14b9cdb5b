// The attribute keys and values of keys (`kSecClassKey`) and of the key functions, with Apple's values.
// swift-format-ignore-file: NeverUseImplicitlyUnwrappedOptionals

import Foundation

/// The key's algorithm family (`type`).
public nonisolated(unsafe) let kSecAttrKeyType: CFString = "type"
/// RSA.
public nonisolated(unsafe) let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic curve keys on the NIST prime curves (P-256, P-384, P-521).
public nonisolated(unsafe) let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// Apple's older name for ``kSecAttrKeyTypeECSECPrimeRandom``.
public nonisolated(unsafe) let kSecAttrKeyTypeEC: CFString = "73"
/// The key's size in bits (`bsiz`).
public nonisolated(unsafe) let kSecAttrKeySizeInBits: CFString = "bsiz"
/// The key's effective size in bits (`esiz`).
public nonisolated(unsafe) let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Public, private or symmetric (`kcls`).
public nonisolated(unsafe) let kSecAttrKeyClass: CFString = "kcls"
/// A public key.
public nonisolated(unsafe) let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
public nonisolated(unsafe) let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key.
public nonisolated(unsafe) let kSecAttrKeyClassSymmetric: CFString = "2"
/// Attributes of the private key of a pair, in `SecKeyCreateRandomKey`'s parameters.
public nonisolated(unsafe) let kSecPrivateKeyAttrs: CFString = "private"
/// Attributes of the public key of a pair, in `SecKeyCreateRandomKey`'s parameters.
public nonisolated(unsafe) let kSecPublicKeyAttrs: CFString = "public"
/// Whether a generated key is stored in the keychain (`perm`; default `false`).
public nonisolated(unsafe) let kSecAttrIsPermanent: CFString = "perm"
/// Whether the key's bytes may leave it (`extr`).
public nonisolated(unsafe) let kSecAttrIsExtractable: CFString = "extr"
/// Whether the key is sensitive (`sens`).
public nonisolated(unsafe) let kSecAttrIsSensitive: CFString = "sens"
/// The key's application label (`klbl`): the SHA-1 of its public key.
public nonisolated(unsafe) let kSecAttrApplicationLabel: CFString = "klbl"
/// The application's tag for the key (`atag`).
public nonisolated(unsafe) let kSecAttrApplicationTag: CFString = "atag"
/// Whether the key can encrypt (`encr`).
public nonisolated(unsafe) let kSecAttrCanEncrypt: CFString = "encr"
/// Whether the key can decrypt (`decr`).
public nonisolated(unsafe) let kSecAttrCanDecrypt: CFString = "decr"
/// Whether the key can derive (`drve`).
public nonisolated(unsafe) let kSecAttrCanDerive: CFString = "drve"
/// Whether the key can sign (`sign`).
public nonisolated(unsafe) let kSecAttrCanSign: CFString = "sign"
/// Whether the key can verify (`vrfy`).
public nonisolated(unsafe) let kSecAttrCanVerify: CFString = "vrfy"
/// Whether the key can wrap another (`wrap`).
public nonisolated(unsafe) let kSecAttrCanWrap: CFString = "wrap"
/// Whether the key can unwrap another (`unwp`).
public nonisolated(unsafe) let kSecAttrCanUnwrap: CFString = "unwp"
/// The token the key lives in (`tkid`).
public nonisolated(unsafe) let kSecAttrTokenID: CFString = "tkid"
/// The Secure Enclave (issue 26: a TPM here).
public nonisolated(unsafe) let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// The size in bytes of the key a key exchange derives (the X9.63 algorithms).
public nonisolated(unsafe) let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// The shared information a key exchange's KDF binds (the X9.63 algorithms).
public nonisolated(unsafe) let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"
