// The item class key and its values, with Apple's raw values (SecItemConstants.c).

import Foundation

/// The key of an item's class; every dictionary names one, except a query by persistent reference.
public nonisolated(unsafe) let kSecClass: CFString = "class"
/// A generic password: identified by account and service.
public nonisolated(unsafe) let kSecClassGenericPassword: CFString = "genp"
/// An internet password: identified by account, security domain, server, protocol, authentication type, port and
/// path.
public nonisolated(unsafe) let kSecClassInternetPassword: CFString = "inet"
/// A certificate (X.509, stored as its DER): identified by its type, issuer and serial number. Added with a
/// `SecCertificate` (`kSecValueRef`) or its DER (`kSecValueData`); `kSecReturnRef` returns a `SecCertificate`.
public nonisolated(unsafe) let kSecClassCertificate: CFString = "cert"
/// A cryptographic key (RSA or NIST-curve, public or private): identified by its class, application label, tag,
/// type and sizes. Added with a `SecKey` (`kSecValueRef`) or its external representation (`kSecValueData`, with
/// `kSecAttrKeyClass` and `kSecAttrKeyType`); `kSecReturnRef` returns a `SecKey`.
public nonisolated(unsafe) let kSecClassKey: CFString = "keys"
/// An identity: a certificate item joined with the private key whose application label is the certificate's
/// public-key hash (Apple's join). Adding a `SecIdentity` stores both; deleting an identity deletes both; deleting
/// either half ends it.
public nonisolated(unsafe) let kSecClassIdentity: CFString = "idnt"
