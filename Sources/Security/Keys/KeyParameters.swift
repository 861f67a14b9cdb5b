import Foundation
import KeychainCore
import KeychainKeys

/// The parameters of `SecKeyCreateRandomKey` and the attributes of `SecKeyCreateWithData`, read from their
/// dictionaries with Apple's leniencies: the size may be a number or its text, and what the data decides (an
/// imported key's size) is taken from the data.
struct KeyParameters {
    var kind: AsymmetricKey.Kind?
    var isRSA: Bool
    var sizeInBits: Int?
    var isPrivate: Bool?
    var isPermanent = false
    var tokenID: String?
    var tag: Data?
    var label: String?

    init(_ dictionary: NSDictionary, nested: String? = nil) throws(EngineError) {
        var values: [String: Any] = [:]
        for (key, value) in try SecItemDictionary.entries(of: dictionary) { values[key] = value }
        // The private key's own attributes (`kSecPrivateKeyAttrs`) say where it goes and how it is named.
        if let nested, let inner = values[nested] {
            guard let innerDictionary = inner as? NSDictionary else {
                throw EngineError(.param, "\(nested) must be a dictionary, not \(FoundationValue.describe(inner))")
            }
            for (key, value) in try SecItemDictionary.entries(of: innerDictionary) where values[key] == nil {
                values[key] = value
            }
        }
        guard let type = values[kSecAttrKeyType as String] else {
            throw EngineError(.param, "the key type (kSecAttrKeyType) is missing")
        }
        let typeName = FoundationValue.integer(type).map(String.init) ?? (type as? String) ?? ""
        if typeName == kSecAttrKeyTypeRSA as String {
            isRSA = true
        } else if typeName == kSecAttrKeyTypeECSECPrimeRandom as String {
            isRSA = false
        } else {
            throw EngineError(
                .param,
                "the key type \(FoundationValue.describe(type)) is not kSecAttrKeyTypeRSA or "
                    + "kSecAttrKeyTypeECSECPrimeRandom")
        }
        if let size = values[kSecAttrKeySizeInBits as String] {
            guard let bits = FoundationValue.integer(size), bits > 0, bits <= 16384 else {
                throw EngineError(.param, "the key size (kSecAttrKeySizeInBits) \(FoundationValue.describe(size))")
            }
            sizeInBits = Int(bits)
        }
        if let keyClass = values[kSecAttrKeyClass as String] {
            let name = FoundationValue.integer(keyClass).map(String.init) ?? (keyClass as? String)
            if name == kSecAttrKeyClassPrivate as String {
                isPrivate = true
            } else if name == kSecAttrKeyClassPublic as String {
                isPrivate = false
            } else {
                throw EngineError(
                    .param,
                    "the key class (kSecAttrKeyClass) \(FoundationValue.describe(keyClass)) is not public or private")
            }
        }
        if let permanent = values[kSecAttrIsPermanent as String] {
            guard let flag = FoundationValue.flag(permanent) else {
                throw FoundationValue.wrongType(kSecAttrIsPermanent as String, expected: "a Boolean", permanent)
            }
            isPermanent = flag
        }
        tokenID = values[kSecAttrTokenID as String] as? String
        if let value = values[kSecAttrApplicationTag as String] {
            tag = (value as? Data) ?? (value as? String).map { Data($0.utf8) }
            if tag == nil { throw FoundationValue.wrongType(kSecAttrApplicationTag as String, expected: "data", value) }
        }
        if let value = values[kSecAttrLabel as String] {
            label = try FoundationValue.requireString(value, for: kSecAttrLabel as String)
        }
    }

    /// The `SecItemAdd` dictionaries of a generated pair's halves (private first, each with its key class): the
    /// parameters' top-level item attributes, then each half's own (`kSecPrivateKeyAttrs`, `kSecPublicKeyAttrs`)
    /// over them, leaving out what only generation reads; a half marked not permanent is left out.
    static func itemDictionaries(
        parameters: NSDictionary, extractableByDefault: Bool
    ) throws(EngineError) -> [NSDictionary] {
        let generationOnly: Set<String> = [
            kSecAttrKeyType as String, kSecAttrKeySizeInBits as String, kSecAttrIsPermanent as String,
            kSecPrivateKeyAttrs as String, kSecPublicKeyAttrs as String, kSecAttrTokenID as String,
        ]
        var common: [String: Any] = [:]
        var nested: [String: NSDictionary] = [:]
        for (key, value) in try SecItemDictionary.entries(of: parameters) {
            if key == kSecPrivateKeyAttrs as String || key == kSecPublicKeyAttrs as String {
                guard let dictionary = value as? NSDictionary else {
                    throw EngineError(.param, "\(key) must be a dictionary, not \(FoundationValue.describe(value))")
                }
                nested[key] = dictionary
            } else if !generationOnly.contains(key) {
                common[key] = value
            }
        }
        var dictionaries: [NSDictionary] = []
        for isPrivate in [true, false] {
            var values = common
            var isPermanent = true
            let own = isPrivate ? kSecPrivateKeyAttrs as String : kSecPublicKeyAttrs as String
            if let attributes = nested[own] {
                for (name, value) in try SecItemDictionary.entries(of: attributes) {
                    if name == kSecAttrIsPermanent as String {
                        guard let flag = FoundationValue.flag(value) else {
                            throw FoundationValue.wrongType("\(own).\(name)", expected: "a Boolean", value)
                        }
                        isPermanent = flag
                        continue
                    }
                    values[name] = value
                }
            }
            guard isPermanent else { continue }
            values[SecItemKeys.itemClass] = SecItemKeys.key
            values[kSecAttrKeyClass as String] = isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic
            if isPrivate {
                if values[kSecAttrIsExtractable as String] == nil {
                    values[kSecAttrIsExtractable as String] = extractableByDefault
                }
            }
            dictionaries.append(NSDictionary(dictionary: values))
        }
        return dictionaries
    }

    /// Whether the parameters ask for a Secure Enclave key (`kSecAttrTokenID`), refusing what Apple's rules refuse
    /// with errSecParam naming the attribute: another token, another key than EC 256.
    func checkSecureEnclave(bits: Int) throws(EngineError) -> Bool {
        guard let tokenID else { return false }
        guard tokenID == SecureEnclave.tokenID else {
            throw EngineError(
                .param,
                "kSecAttrTokenID \(tokenID) is not a token this keychain has (kSecAttrTokenIDSecureEnclave is)")
        }
        guard !isRSA, bits == 256 else {
            throw EngineError(
                .param,
                "kSecAttrTokenID kSecAttrTokenIDSecureEnclave makes elliptic-curve keys of 256 bits only "
                    + "(kSecAttrKeyType \(isRSA ? "RSA" : "EC"), kSecAttrKeySizeInBits \(bits))")
        }
        return true
    }

    /// The curve a size names (256, 384, 521).
    static func curve(bits: Int) throws(EngineError) -> AsymmetricKey.Curve {
        guard let curve = AsymmetricKey.Curve(rawValue: bits) else {
            throw EngineError(.param, "an elliptic-curve key of \(bits) bits: the sizes are 256, 384 and 521")
        }
        return curve
    }
}
