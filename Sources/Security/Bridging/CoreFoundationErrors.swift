// CoreFoundation's error functions and keys, on the `CFError` alias (`NSError`). Keychain code reads the errors of
// `SecAccessControlCreateWithFlags` and friends with them; users cannot import CoreFoundation beside `Security`
// (the names would be ambiguous), so they live here. Signatures are those Apple's SDK imports, optionals included.
// swift-format-ignore-file: NeverUseImplicitlyUnwrappedOptionals

import Foundation

/// The name of an error domain.
public typealias CFErrorDomain = CFString

/// The domain of `OSStatus` codes (the keychain's `errSec…`).
public nonisolated(unsafe) let kCFErrorDomainOSStatus: CFErrorDomain! = NSString(string: NSOSStatusErrorDomain)
/// The domain of POSIX `errno` codes.
public nonisolated(unsafe) let kCFErrorDomainPOSIX: CFErrorDomain! = NSString(string: NSPOSIXErrorDomain)
/// The domain of Mach codes.
public nonisolated(unsafe) let kCFErrorDomainMach: CFErrorDomain! = NSString(string: NSMachErrorDomain)
/// The domain of Cocoa (Foundation) codes.
public nonisolated(unsafe) let kCFErrorDomainCocoa: CFErrorDomain! = NSString(string: NSCocoaErrorDomain)

/// The user-info key of the localized description.
public nonisolated(unsafe) let kCFErrorLocalizedDescriptionKey: CFString! = NSString(string: NSLocalizedDescriptionKey)
/// The user-info key of the localized failure.
public nonisolated(unsafe) let kCFErrorLocalizedFailureKey: CFString! = "NSLocalizedFailure"
/// The user-info key of the localized failure reason.
public nonisolated(unsafe) let kCFErrorLocalizedFailureReasonKey: CFString! = NSString(
    string: NSLocalizedFailureReasonErrorKey)
/// The user-info key of the localized recovery suggestion.
public nonisolated(unsafe) let kCFErrorLocalizedRecoverySuggestionKey: CFString! = NSString(
    string: NSLocalizedRecoverySuggestionErrorKey)
/// The user-info key of a description that is not localized.
public nonisolated(unsafe) let kCFErrorDescriptionKey: CFString! = "NSDescription"
/// The user-info key of the underlying error.
public nonisolated(unsafe) let kCFErrorUnderlyingErrorKey: CFString! = NSString(string: NSUnderlyingErrorKey)
/// The user-info key of a URL.
public nonisolated(unsafe) let kCFErrorURLKey: CFString! = NSString(string: NSURLErrorKey)
/// The user-info key of a file path.
public nonisolated(unsafe) let kCFErrorFilePathKey: CFString! = NSString(string: NSFilePathErrorKey)

/// Creates an error with a domain, a code and a user-info dictionary (`allocator` is ignored).
public func CFErrorCreate(
    _ allocator: CFAllocator!, _ domain: CFErrorDomain!, _ code: CFIndex, _ userInfo: CFDictionary!
) -> CFError! {
    var info: [String: Any] = [:]
    for case (let key as String, let value) in userInfo ?? [:] { info[key] = value }
    return NSError(domain: (domain ?? "") as String, code: code, userInfo: info)
}

/// The error's domain.
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! {
    err.map { NSString(string: $0.domain) }
}

/// The error's code (for a keychain error, its `OSStatus`).
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    err?.code ?? 0
}

/// A copy of the error's user-info dictionary.
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    err.map { NSDictionary(dictionary: $0.userInfo) }
}

/// The error's description: the localized description, else one built from the domain and code.
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    err.map { NSString(string: $0.localizedDescription) }
}

/// The error's localized failure reason, if it has one.
public func CFErrorCopyFailureReason(_ err: CFError!) -> CFString! {
    (err?.userInfo[NSLocalizedFailureReasonErrorKey] as? String).map { NSString(string: $0) }
}

/// The error's localized recovery suggestion, if it has one.
public func CFErrorCopyRecoverySuggestion(_ err: CFError!) -> CFString! {
    (err?.userInfo[NSLocalizedRecoverySuggestionErrorKey] as? String).map { NSString(string: $0) }
}
