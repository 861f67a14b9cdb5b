// The item class key and its values, with Apple's raw values (SecItemConstants.c).

import Foundation

/// The key of an item's class; every dictionary names one, except a query by persistent reference.
public nonisolated(unsafe) let kSecClass: CFString = "class"
/// A generic password: identified by account and service.
public nonisolated(unsafe) let kSecClassGenericPassword: CFString = "genp"
/// An internet password: identified by account, security domain, server, protocol, authentication type, port and
/// path.
public nonisolated(unsafe) let kSecClassInternetPassword: CFString = "inet"
/// A certificate. Not supported yet: every call with this class returns `errSecUnimplemented`.
public nonisolated(unsafe) let kSecClassCertificate: CFString = "cert"
/// A cryptographic key. Not supported yet: every call with this class returns `errSecUnimplemented`.
public nonisolated(unsafe) let kSecClassKey: CFString = "keys"
/// An identity (a certificate and its private key). Not supported yet: every call with this class returns
/// `errSecUnimplemented`.
public nonisolated(unsafe) let kSecClassIdentity: CFString = "idnt"
