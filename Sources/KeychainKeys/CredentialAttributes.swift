import Foundation
import KeychainCore

/// What a key or certificate item stores, derived from the object as Apple's server derives it
/// (`SecItemSchema.c`, `SecKeyCopyAttributes`): the key's class, type and sizes, its application label (the SHA-1
/// of its public key) and abilities; the certificate's type, encoding, names, serial number and public-key hash.
/// The secret is the key's external representation (PKCS#1 for RSA, ANSI X9.63 for EC) or the certificate's DER.
package enum CredentialAttributes {
    /// `kcls` of a public and of a private key.
    package static let publicKeyClass: Int64 = 0
    package static let privateKeyClass: Int64 = 1
    /// `type` of an RSA and of an elliptic-curve key (Apple's `kSecAttrKeyTypeRSA`, `…ECSECPrimeRandom`).
    package static let rsaType: Int64 = 42
    package static let ellipticCurveType: Int64 = 73
    /// `ctyp` of an X.509 version 3 certificate and `cenc` of DER (CSSM's values, which Apple keeps).
    package static let x509Version3: Int64 = 3
    package static let derEncoding: Int64 = 3

    /// The attributes and secret of a key item for `key`: what the key decides (class, type, sizes) always comes
    /// from it, as Apple's does; the label, tag, abilities and `klbl` the caller gave win over the defaults.
    package static func key(
        _ key: AsymmetricKey, given: ItemAttributes, tag: Data?, label: String?
    ) throws(EngineError) -> (attributes: ItemAttributes, data: Data) {
        var attributes = given
        let isPrivate = key.isPrivate
        let isRSA = key.kind == .rsa
        attributes[.keyClass] = .integer(isPrivate ? privateKeyClass : publicKeyClass)
        attributes[.type] = .integer(isRSA ? rsaType : ellipticCurveType)
        attributes[.keySizeInBits] = .integer(Int64(key.sizeInBits))
        attributes[.effectiveKeySize] = .integer(Int64(key.sizeInBits))
        let defaults: [(AttributeKey, AttributeValue)] = [
            (.applicationLabel, .data(try applicationLabel(of: key))),
            (.isPermanent, .bool(true)), (.isExtractable, .bool(true)), (.isSensitive, .bool(false)),
            (.canSign, .bool(isPrivate)), (.canVerify, .bool(!isPrivate)),
            (.canDecrypt, .bool(isPrivate && isRSA)), (.canEncrypt, .bool(!isPrivate && isRSA)),
            (.canDerive, .bool(isPrivate && !isRSA)), (.canWrap, .bool(false)), (.canUnwrap, .bool(false)),
        ]
        for (attribute, value) in defaults where attributes[attribute] == nil { attributes[attribute] = value }
        if attributes[.applicationTag] == nil, let tag { attributes[.applicationTag] = .data(tag) }
        if attributes[.label] == nil, let label { attributes[.label] = .string(label) }
        return (attributes, try key.externalRepresentation())
    }

    /// The key `data` holds, read as the attributes' class (`kcls`) and type (`type`) say: both are required, as
    /// `SecKeyCreateWithData` requires them. `isStored`: the bytes come from the keychain's own authenticated
    /// storage and were checked when stored, so they are not checked again.
    package static func key(
        in data: Data, attributes: ItemAttributes, isStored: Bool = false
    ) throws(EngineError) -> AsymmetricKey {
        guard case .integer(let keyClass) = attributes[.keyClass], keyClass <= privateKeyClass else {
            throw EngineError(
                .param, "a key item's data needs its class: kSecAttrKeyClass (\"kcls\") public or private")
        }
        guard case .integer(let type) = attributes[.type], [rsaType, ellipticCurveType].contains(type) else {
            throw EngineError(
                .param,
                "a key item's data needs its type: kSecAttrKeyType (\"type\") kSecAttrKeyTypeRSA or …ECSECPrimeRandom")
        }
        return try AsymmetricKey.importing(
            data, kind: type == rsaType ? .rsa : .ec(.p256), isPrivate: keyClass == privateKeyClass, checking: !isStored
        )
    }

    /// The attributes and secret of a certificate item: type, encoding, subject and issuer (normalized content), serial number, subject key
    /// identifier, the SHA-1 of its public key (which its private key's `klbl` matches) and, unless given, the
    /// subject summary as the label.
    package static func certificate(
        _ certificate: Certificate, given: ItemAttributes
    ) throws(EngineError) -> (attributes: ItemAttributes, data: Data) {
        // Apple's form: the names' normalized content (DistinguishedName), so two encodings of a name match.
        guard let issuer = certificate.issuerDER.flatMap(DistinguishedName.normalizedContent(of:)),
            let serial = certificate.serialNumber,
            let subject = certificate.subjectDER.flatMap(DistinguishedName.normalizedContent(of:))
        else {
            throw EngineError(.decode, "the certificate's issuer, subject or serial number cannot be read")
        }
        var attributes = given
        attributes[.certificateType] = .integer(x509Version3)
        attributes[.certificateEncoding] = .integer(derEncoding)
        attributes[.issuer] = .data(issuer)
        attributes[.serialNumber] = .data(serial)
        attributes[.subject] = .data(subject)
        if let identifier = certificate.subjectKeyIdentifier { attributes[.subjectKeyID] = .data(identifier) }
        if let key = try? certificate.publicKey() { attributes[.publicKeyHash] = .data(try applicationLabel(of: key)) }
        if attributes[.label] == nil, let summary = certificate.subjectSummary { attributes[.label] = .string(summary) }
        return (attributes, certificate.der)
    }

    /// A key's application label: the SHA-1 of its public key's external representation.
    package static func applicationLabel(of key: AsymmetricKey) throws(EngineError) -> Data {
        try Digest.sha1.hash(try key.publicRepresentation())
    }
}
