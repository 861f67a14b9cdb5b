// CoreFoundation's names for the Foundation classes that exist on Linux.
//
// On Apple's platforms `CFDictionary` and `NSDictionary` are one object seen through two names (toll-free
// bridging). Linux has no such bridge: `import Foundation` exports no CF types, and CoreFoundation's own types do not
// convert to the Foundation classes. Naming the Foundation classes with CF's names gives keychain code written for
// iOS the same spelling here: `query as CFDictionary`, `var item: CFTypeRef?`, `item as? Data`.
//
// A file that also imports CoreFoundation sees both sets of names and reports them as ambiguous; keychain code
// needs only Foundation and Security.

import Foundation

/// Any object, as `CFTypeRef` is on Apple's platforms.
public typealias CFTypeRef = AnyObject
/// A dictionary object (`NSDictionary`); `[String: Any]` converts with `as CFDictionary`.
public typealias CFDictionary = NSDictionary
/// An array object (`NSArray`).
public typealias CFArray = NSArray
/// A string object (`NSString`); the `kSec*` constants have this type and convert with `as String`.
public typealias CFString = NSString
/// A data object (`NSData`); results of this type convert with `as? Data`.
public typealias CFData = NSData
/// A number object (`NSNumber`).
public typealias CFNumber = NSNumber
/// A Boolean object: an `NSNumber` holding a Bool.
public typealias CFBoolean = NSNumber
/// A date object (`NSDate`).
public typealias CFDate = NSDate
/// An error object (`NSError`).
public typealias CFError = NSError
/// An allocator. Linux has only the default one; every API that takes an allocator accepts `nil`.
public typealias CFAllocator = AnyObject
/// The bit-set type of option flags such as ``SecAccessControlCreateFlags``.
public typealias CFOptionFlags = UInt
/// A signed count or index.
public typealias CFIndex = Int
/// A status code: `errSecSuccess` (0) or one of Apple's negative `errSec*` values.
public typealias OSStatus = Int32

// Implicitly unwrapped, as Apple's SDK imports them, so that both `kCFBooleanTrue` and `kCFBooleanTrue!` compile.
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
/// The Boolean true object.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
// swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
/// The Boolean false object.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
/// The default allocator: `nil`, as every allocator parameter accepts.
public nonisolated(unsafe) let kCFAllocatorDefault: CFAllocator? = nil
