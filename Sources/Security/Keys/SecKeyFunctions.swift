import Foundation
import KeychainClient
import KeychainCore
import KeychainKeys
import KeychainPrompts

// Apple's key functions (SecKey.h), on the key layer (KeychainKeys). Each reports a failure as Apple does: `nil` or
// `false`, and a `CFError` whose code is the status (errSecParam for an algorithm the key does not support or input
// it cannot take) and whose description names what was wrong.

/// Runs `body`, reporting an `EngineError` it throws to `error` and answering `nil`.
private func reporting<Result>(
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws(EngineError) -> Result
) -> Result? {
    do throws(EngineError) {
        let result = try body()
        LastErrorMessage.record(nil)
        return result
    } catch let failure {
        CFErrorOut.report(failure, to: error)
        return nil
    }
}

/// A new key pair's private key, described by `parameters`: `kSecAttrKeyType` (RSA or EC) and
/// `kSecAttrKeySizeInBits` (RSA 1024–4096; EC 256, 384 or 521). With `kSecAttrIsPermanent` (default `false`, as
/// Apple's) both halves are stored in the keychain, all or nothing, each with the top-level attributes
/// (`kSecAttrAccessGroup`, `kSecAttrAccessible`, `kSecAttrAccessControl`, a tag, a label …) and its own from
/// `kSecPrivateKeyAttrs` or `kSecPublicKeyAttrs`; a half whose own `kSecAttrIsPermanent` is false stays out. The
/// private half is not extractable (`kSecAttrIsExtractable` false) when keychaind holds the keychain, unless the
/// parameters say otherwise, and the key returned is then a handle whose private operations run in keychaind.
///
/// `kSecAttrTokenID: kSecAttrTokenIDSecureEnclave` makes the private key inside the TPM of the process that holds
/// the keychain (keychaind for its clients), as Apple's rules say: an EC key of 256 bits, never extractable; its item
/// stores the TPM's wrapped blob. One that is not stored is made in this process's TPM. Without a TPM that is
/// errSecUnimplemented naming the missing TPM, never a key made in software.
public func SecKeyCreateRandomKey(
    _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    reporting(error) { () throws(EngineError) -> SecKey in
        let request = try KeyParameters(parameters, nested: kSecPrivateKeyAttrs as String)
        guard let bits = request.sizeInBits else {
            throw EngineError(.param, "the key size (kSecAttrKeySizeInBits) is missing")
        }
        let inEnclave = try request.checkSecureEnclave(bits: bits)
        guard request.isPermanent else {
            if inEnclave {
                // Apple's Secure Enclave key that is not stored: made in this process's TPM, held here as its blob.
                let made = try SecureEnclave.makeKey()
                return try SecKey(
                    enclaveBlob: made.blob, publicKey: made.publicKey, tag: request.tag, label: request.label)
            }
            let key =
                request.isRSA
                ? try AsymmetricKey.generateRSA(bits: bits)
                : try AsymmetricKey.generateEC(KeyParameters.curve(bits: bits))
            return try SecKey(key: key, tag: request.tag, label: request.label)
        }
        // A stored pair is made by the keychain itself: through keychaind its private half is born there and, unless
        // the parameters say otherwise, stays there (this process gets a handle).
        let keychain = try SecItemKeychain.current()
        let halves = try KeyParameters.itemDictionaries(
            parameters: parameters, extractableByDefault: !(keychain.backend is DaemonClient) && !inEnclave
        ).map { (dictionary) throws(EngineError) in try SecItemDictionary(adding: dictionary) }
        guard var privateHalf = halves.first(where: { $0.attributes[.keyClass] == .integer(1) }) else {
            throw EngineError(.param, "kSecPrivateKeyAttrs says the private key is not permanent; it must be")
        }
        if inEnclave { privateHalf.attributes[.tokenID] = .string(SecureEnclave.tokenID) }
        let publicHalf = halves.first { $0.attributes[.keyClass] == .integer(0) }
        let items = try AuthenticationLoop.perform(privateHalf.authenticationOptions, backend: keychain.backend) {
            (authentication) throws(EngineError) -> [Item] in
            func item(_ half: SecItemDictionary) -> NewItem {
                NewItem(
                    itemClass: .key, attributes: half.attributes, allowsThisDeviceOnlySynchronizable: true,
                    authentication: authentication)
            }
            let generation = KeyGeneration(
                keyType: request.isRSA ? CredentialAttributes.rsaType : CredentialAttributes.ellipticCurveType,
                sizeInBits: bits, privateKey: item(privateHalf), publicKey: publicHalf.map(item))
            return try keychain.backend.generateKey(generation, for: keychain.caller)
        }
        guard let stored = items.first else { throw EngineError(.internalComponent, "no key came back") }
        return try CredentialAttributes.secKey(
            of: stored, keychain: keychain, authentication: privateHalf.authenticationOptions)
    }
}

/// A key from its external representation (PKCS#1 for RSA, ANSI X9.63 for EC), as `attributes` name it:
/// `kSecAttrKeyType` and `kSecAttrKeyClass` (public or private) are required; a size given beside them is ignored,
/// as Apple ignores it: the data decides. Data that is not such a key (a point off its curve, halves that do not
/// match) is errSecParam.
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    reporting(error) { () throws(EngineError) -> SecKey in
        let request = try KeyParameters(attributes)
        if let token = request.tokenID {
            throw EngineError(
                .param,
                "kSecAttrTokenID \(token): a key in a token is generated inside it (SecKeyCreateRandomKey), never "
                    + "imported")
        }
        guard let isPrivate = request.isPrivate else {
            throw EngineError(.param, "the key class (kSecAttrKeyClass) is missing")
        }
        let data = keyData as Data
        let key = try AsymmetricKey.importing(data, kind: request.isRSA ? .rsa : .ec(.p256), isPrivate: isPrivate)
        return try SecKey(key: key, tag: request.tag, label: request.label)
    }
}

/// The key's external representation (PKCS#1 for RSA, ANSI X9.63 for EC).
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(EngineError) -> CFData in NSData(data: try key.extractable().externalRepresentation())
    }
}

/// The public key of a key pair (the key itself when it is public).
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard key.isPrivate else { return key }
    // A key the keychain holds is known here by its public half already.
    if key.isHeldElsewhere { return try? SecKey(key: key.key, tag: key.tag, label: key.label) }
    return try? SecKey(key: key.key.publicKey(), tag: key.tag, label: key.label)
}

/// The key's attributes: its class, type, sizes, application label (the SHA-1 of its public key), what it can do,
/// its tag and label when it was given them, and its external representation (`v_Data`), as Apple's.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    let isPrivate = key.isPrivate
    var attributes: [String: Any] = [
        kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate as String : kSecAttrKeyClassPublic as String,
        kSecAttrKeyType as String: key.keyType,
        kSecAttrKeySizeInBits as String: key.key.sizeInBits,
        kSecAttrEffectiveKeySize as String: key.key.sizeInBits,
        kSecAttrIsPermanent as String: key.storedKey != nil,
        kSecAttrIsExtractable as String: !key.isHeldElsewhere,
        kSecAttrCanSign as String: isPrivate,
        kSecAttrCanVerify as String: !isPrivate,
        kSecAttrCanDecrypt as String: isPrivate && key.key.kind == .rsa,
        kSecAttrCanEncrypt as String: !isPrivate && key.key.kind == .rsa,
        kSecAttrCanDerive as String: isPrivate && key.key.kind != .rsa,
        kSecAttrCanWrap as String: false,
        kSecAttrCanUnwrap as String: false,
    ]
    if let label = try? Digest.sha1.hash(key.publicBytes) { attributes[kSecAttrApplicationLabel as String] = label }
    if let tag = key.tag { attributes[kSecAttrApplicationTag as String] = tag }
    if let label = key.label { attributes[kSecAttrLabel as String] = label }
    if let token = key.tokenID { attributes[kSecAttrTokenID as String] = token }
    if !key.isHeldElsewhere, let bytes = try? key.key.externalRepresentation() {
        attributes[kSecValueData as String] = bytes
    }
    return NSDictionary(dictionary: attributes)
}

/// The size in bytes of the key's largest single output: the modulus for RSA, a DER signature for EC.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    key.key.blockSize
}

/// Whether `algorithm` can do `operation` with `key`: a signature with a private key, a verification with either,
/// encryption with an RSA key, decryption with an RSA private key, a key exchange with an EC private key, each with
/// an algorithm of the key's family.
public func SecKeyIsAlgorithmSupported(
    _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm
) -> Bool {
    guard let action = algorithm.operation else { return false }
    let isRSA = key.key.kind == .rsa
    let isPrivate = key.isPrivate
    // A Secure Enclave key's private half does what the TPM does.
    if isPrivate, key.tokenID == SecureEnclave.tokenID, operation != .verify, operation != .encrypt,
        !SecureEnclave.supports(action)
    {
        return false
    }
    switch (operation, action) {
    case (.sign, .signature(let scheme)): return isPrivate && scheme.isRSA == isRSA
    case (.verify, .signature(let scheme)): return scheme.isRSA == isRSA
    case (.encrypt, _) where action.isEncryption: return action.isRSA == isRSA
    case (.decrypt, _) where action.isEncryption: return action.isRSA == isRSA && isPrivate
    case (.keyExchange, .keyExchange): return !isRSA && isPrivate
    default: return false
    }
}

/// The signature of `dataToSign` (a message or a digest, as the algorithm says) by a private key.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(EngineError) -> CFData in
        guard case .signature = algorithm.operation, SecKeyIsAlgorithmSupported(key, .sign, algorithm)
        else { throw unsupported(algorithm, .sign, key) }
        return NSData(data: try key.run(KeyUse(.sign, algorithm: algorithm.identifier, input: dataToSign as Data)))
    }
}

/// Whether `signature` is the signature of `signedData` by the key (or its private half). A signature that does
/// not verify is `false` with errSecVerifyFailed in `error`; an algorithm the key does not support is errSecParam.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    reporting(error) { () throws(EngineError) -> Bool in
        guard case .signature(let scheme) = algorithm.operation, SecKeyIsAlgorithmSupported(key, .verify, algorithm)
        else { throw unsupported(algorithm, .verify, key) }
        guard try key.key.verify(signature as Data, of: signedData as Data, scheme: scheme) else {
            throw EngineError(.verifyFailed, "the signature does not verify with this key and \(algorithm.identifier)")
        }
        return true
    } ?? false
}

/// `plaintext` encrypted with an RSA key's public half.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(EngineError) -> CFData in
        guard let operation = algorithm.operation, SecKeyIsAlgorithmSupported(key, .encrypt, algorithm)
        else { throw unsupported(algorithm, .encrypt, key) }
        return NSData(data: try operation.encrypt(plaintext as Data, for: key.key))
    }
}

/// `ciphertext` decrypted with an RSA private key.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(EngineError) -> CFData in
        guard SecKeyIsAlgorithmSupported(key, .decrypt, algorithm) else { throw unsupported(algorithm, .decrypt, key) }
        return NSData(data: try key.run(KeyUse(.decrypt, algorithm: algorithm.identifier, input: ciphertext as Data)))
    }
}

/// The result of a key exchange between a private key and another party's public key: the shared secret, or for
/// the X9.63 algorithms the key derived from it (`kSecKeyKeyExchangeParameterRequestedSize` bytes, required, with
/// `kSecKeyKeyExchangeParameterSharedInfo` when given).
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(EngineError) -> CFData in
        guard case .keyExchange(_, let kdf) = algorithm.operation,
            SecKeyIsAlgorithmSupported(privateKey, .keyExchange, algorithm)
        else { throw unsupported(algorithm, .keyExchange, privateKey) }
        var use = KeyUse(.keyExchange, algorithm: algorithm.identifier, input: try publicKey.key.publicRepresentation())
        if kdf != nil {
            var values: [String: Any] = [:]
            for (key, value) in try SecItemDictionary.entries(of: parameters) { values[key] = value }
            let sizeKey = kSecKeyKeyExchangeParameterRequestedSize as String
            guard let sizeValue = values[sizeKey], let size = FoundationValue.integer(sizeValue), size > 0,
                size <= Int64(Int32.max)
            else {
                throw EngineError(
                    .param, "\(algorithm.identifier) needs a positive kSecKeyKeyExchangeParameterRequestedSize")
            }
            use.requestedSize = Int(size)
            let infoKey = kSecKeyKeyExchangeParameterSharedInfo as String
            if let info = values[infoKey] { use.sharedInfo = try FoundationValue.requireData(info, for: infoKey) }
        }
        return NSData(data: try privateKey.run(use))
    }
}

/// errSecParam: the algorithm cannot do this with this key.
private func unsupported(_ algorithm: SecKeyAlgorithm, _ operation: SecKeyOperationType, _ key: SecKey) -> EngineError {
    EngineError(
        .param,
        "\(algorithm.identifier) does not support \(operation) with \(key.description) "
            + "(SecKeyIsAlgorithmSupported answers false)")
}
