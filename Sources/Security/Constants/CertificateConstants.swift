import Foundation

// The attributes of certificate items (`kSecClassCertificate`), Apple's names and four-character values.

/// The certificate's type: 3 for X.509 version 3 (`ctyp`).
public nonisolated(unsafe) let kSecAttrCertificateType: CFString = "ctyp"
/// The certificate's encoding: 3 for DER (`cenc`).
public nonisolated(unsafe) let kSecAttrCertificateEncoding: CFString = "cenc"
/// The certificate's subject: its name's normalized content (`subj`).
public nonisolated(unsafe) let kSecAttrSubject: CFString = "subj"
/// The certificate's issuer: its name's normalized content (`issr`); a query may give the whole DER name.
public nonisolated(unsafe) let kSecAttrIssuer: CFString = "issr"
/// The certificate's serial number: the INTEGER's content octets (`slnr`).
public nonisolated(unsafe) let kSecAttrSerialNumber: CFString = "slnr"
/// The certificate's subject key identifier (`skid`).
public nonisolated(unsafe) let kSecAttrSubjectKeyID: CFString = "skid"
/// The SHA-1 of the certified public key (`pkhh`): its private key's `kSecAttrApplicationLabel`.
public nonisolated(unsafe) let kSecAttrPublicKeyHash: CFString = "pkhh"
