import Foundation
import KeychainCore

/// The objects `SecItemCopyMatching` and `SecItemAdd` return, in Apple's shapes.
///
/// Per item: only the secret asked for → `Data`; only the persistent reference → `Data`; anything else → a
/// dictionary holding what was asked for (the class and the attributes with `kSecReturnAttributes`, `v_Data` with
/// `kSecReturnData`, `v_PersistentRef` with `kSecReturnPersistentRef`); nothing asked for → no result. A limit of one
/// returns the item's object alone, any other limit an array of them.
///
/// Attribute dictionaries also carry `class` (Apple's carry it only with `kSecReturnRef`), so a returned dictionary
/// works as a query again as it is.
enum SecItemResult {
    /// The result of a call that matched or added `items`.
    static func object(for items: [Item], returning: ReturnOptions, single: Bool) -> CFTypeRef? {
        guard !returning.isEmpty else { return nil }
        let objects = items.map { object(for: $0, returning: returning) }
        if single { return objects.first }
        return NSArray(array: objects)
    }

    /// One item's object.
    static func object(for item: Item, returning: ReturnOptions) -> AnyObject {
        switch returning {
        case .data: return NSData(data: item.data ?? Data())
        case .persistentReference: return NSData(data: item.persistentReference.data)
        default:
            var dictionary: [String: AnyObject] = [:]
            if returning.contains(.attributes) {
                dictionary["class"] = NSString(string: item.itemClass.rawValue)
                for (key, value) in item.attributes {
                    dictionary[key.rawValue] = FoundationValue.object(value)
                }
            }
            if returning.contains(.data) { dictionary["v_Data"] = NSData(data: item.data ?? Data()) }
            if returning.contains(.persistentReference) {
                dictionary["v_PersistentRef"] = NSData(data: item.persistentReference.data)
            }
            return NSDictionary(dictionary: dictionary)
        }
    }
}
