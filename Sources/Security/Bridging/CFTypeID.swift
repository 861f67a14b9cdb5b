import Foundation

// CoreFoundation's type identifiers, for the check key code makes on what `SecItemCopyMatching` or
// `SecPKCS12Import` handed back: `CFGetTypeID(ref) == SecKeyGetTypeID()`. Each type this module or Foundation
// bridges has its own; the values are this library's, stable within a process (Apple's are too, no more).

/// A CoreFoundation type's identifier.
public typealias CFTypeID = UInt

/// `SecKey`'s type identifier.
public func SecKeyGetTypeID() -> CFTypeID { 1 }
/// `SecCertificate`'s type identifier.
public func SecCertificateGetTypeID() -> CFTypeID { 2 }
/// `SecIdentity`'s type identifier.
public func SecIdentityGetTypeID() -> CFTypeID { 3 }
/// `SecAccessControl`'s type identifier.
public func SecAccessControlGetTypeID() -> CFTypeID { 4 }
/// `CFString`'s type identifier.
public func CFStringGetTypeID() -> CFTypeID { 7 }
/// `CFData`'s type identifier.
public func CFDataGetTypeID() -> CFTypeID { 8 }
/// `CFNumber`'s type identifier.
public func CFNumberGetTypeID() -> CFTypeID { 9 }
/// `CFBoolean`'s type identifier.
public func CFBooleanGetTypeID() -> CFTypeID { 10 }
/// `CFDictionary`'s type identifier.
public func CFDictionaryGetTypeID() -> CFTypeID { 11 }
/// `CFArray`'s type identifier.
public func CFArrayGetTypeID() -> CFTypeID { 12 }
/// `CFDate`'s type identifier.
public func CFDateGetTypeID() -> CFTypeID { 13 }

/// The type identifier of a CoreFoundation (or bridged Foundation) value; 0 for anything else.
public func CFGetTypeID(_ cf: CFTypeRef?) -> CFTypeID {
    switch cf {
    case is SecKey: SecKeyGetTypeID()
    case is SecCertificate: SecCertificateGetTypeID()
    case is SecIdentity: SecIdentityGetTypeID()
    case is SecAccessControl: SecAccessControlGetTypeID()
    case let number as NSNumber: String(cString: number.objCType) == "c" ? CFBooleanGetTypeID() : CFNumberGetTypeID()
    case is NSString: CFStringGetTypeID()
    case is NSData: CFDataGetTypeID()
    case is NSDictionary: CFDictionaryGetTypeID()
    case is NSArray: CFArrayGetTypeID()
    case is NSDate: CFDateGetTypeID()
    default: 0
    }
}
