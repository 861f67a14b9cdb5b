import Foundation
import KeychainCore
import KeychainKeys

/// The objects `SecItemCopyMatching` and `SecItemAdd` return, in Apple's shapes (`SecDbItemCopyResult` in Apple's
/// `SecItemDb.c`, then `SecItemResultCopyPrepared` in `SecItem.m`).
///
/// Per item: only the secret asked for → `Data` (empty for an item without data); only the persistent reference →
/// `Data`; anything else → a dictionary holding what was asked for (the class and the attributes with
/// `kSecReturnAttributes`, `v_Data` with `kSecReturnData`, `v_PersistentRef` with `kSecReturnPersistentRef`);
/// nothing asked for → no result. A limit of one returns the item's object alone, any other limit an array of them.
///
/// Password items have no reference object, so `kSecReturnRef` answers as Apple's server does for them: the
/// dictionary of the class, the attributes and the data, alone or with what the other keys ask for.
///
/// A dictionary holds only values an item has: an item without data has no `v_Data` (Apple leaves out every absent
/// value), and an attribute the item does not have is not there. Attribute dictionaries also carry `class` (Apple's
/// carry it only with `kSecReturnRef`), so a returned dictionary works as a query again as it is.
enum SecItemResult {
    /// What the engine must return for a request: with `kSecReturnRef`, the attributes and the data too.
    static func needs(of request: SecItemDictionary) -> ReturnOptions {
        guard request.returnsReference else { return request.returning }
        // A key's object is made from its attributes first: a key the keychain keeps needs no bytes, and one that
        // may leave is read once it is known to be one (so a key with access control asks the user once).
        if request.itemClass == .key, !request.isIdentity { return request.returning.union([.attributes]) }
        return request.returning.union([.attributes, .data])
    }

    /// The result of a call that matched or added `items`.
    static func object(
        for items: [Item], request: SecItemDictionary, single: Bool, keychain: SecItemKeychain
    ) throws(EngineError) -> CFTypeRef? {
        guard !request.returning.isEmpty || request.returnsReference else { return nil }
        var objects: [AnyObject] = []
        for item in items {
            var referenceObject: AnyObject?
            if request.returnsReference {
                switch item.itemClass {
                case .key:
                    referenceObject = try CredentialAttributes.secKey(
                        of: item, keychain: keychain, authentication: request.authenticationOptions)
                case .certificate: referenceObject = try CredentialAttributes.secCertificate(of: item)
                case .genericPassword, .internetPassword: referenceObject = nil
                }
            }
            objects.append(
                object(
                    for: item, returning: request.returning, reference: request.returnsReference,
                    referenceObject: referenceObject))
        }
        if single { return objects.first }
        return NSArray(array: objects)
    }

    /// The result of a call that matched or added identities: per identity, the `SecIdentity` for `kSecReturnRef`
    /// alone, else a dictionary of what was asked for, the certificate's attributes, data and persistent reference
    /// (Apple's identity results are its certificate's, with the identity as `v_Ref`).
    static func object(
        for identities: [(certificate: Item, privateKey: Item)], request: SecItemDictionary, single: Bool,
        keychain: SecItemKeychain
    ) throws(EngineError) -> CFTypeRef? {
        guard !request.returning.isEmpty || request.returnsReference else { return nil }
        var objects: [AnyObject] = []
        for (certificate, privateKey) in identities {
            let identity = SecIdentity(
                certificate: try CredentialAttributes.secCertificate(of: certificate),
                privateKey: try CredentialAttributes.secKey(
                    of: privateKey, keychain: keychain, authentication: request.authenticationOptions))
            objects.append(
                object(
                    for: certificate, returning: request.returning, reference: request.returnsReference,
                    referenceObject: identity, className: SecItemKeys.identity))
        }
        if single { return objects.first }
        return NSArray(array: objects)
    }

    /// One item's object, with the reference object already made (`nil` for a password). A key's or certificate's
    /// `kSecReturnRef` is its `SecKey` or `SecCertificate`, alone when nothing else is asked for, else as `v_Ref` in
    /// the dictionary.
    private static func object(
        for item: Item, returning: ReturnOptions, reference: Bool, referenceObject: AnyObject?,
        className: String? = nil
    ) -> AnyObject {
        if let referenceObject, returning.isEmpty { return referenceObject }
        // A password's reference is Apple's dictionary of class, attributes and data.
        let passwordReference = reference && referenceObject == nil
        if !passwordReference {
            switch returning {
            case .data where referenceObject == nil: return NSData(data: item.data ?? Data())
            case .persistentReference where referenceObject == nil:
                return NSData(data: item.persistentReference.data)
            default: break
            }
        }
        var dictionary: [String: AnyObject] = [:]
        if returning.contains(.attributes) || passwordReference {
            dictionary[SecItemKeys.itemClass] = NSString(string: className ?? item.itemClass.rawValue)
            for (key, value) in item.attributes {
                if key == .accessControl {
                    // Apple returns the item's SecAccessControl (its accessibility and flags).
                    if let control = SecAccessControl(storedIn: item.attributes) { dictionary[key.rawValue] = control }
                    continue
                }
                dictionary[key.rawValue] = FoundationValue.object(value)
            }
        }
        // The engine keeps an absent secret as empty data, so empty data is an item without data.
        if returning.contains(.data) || passwordReference, let data = item.data, !data.isEmpty {
            dictionary[SecItemKeys.valueData] = NSData(data: data)
        }
        if returning.contains(.persistentReference) {
            dictionary[SecItemKeys.valuePersistentReference] = NSData(data: item.persistentReference.data)
        }
        if let referenceObject { dictionary[SecItemKeys.valueReference] = referenceObject }
        return NSDictionary(dictionary: dictionary)
    }
}
