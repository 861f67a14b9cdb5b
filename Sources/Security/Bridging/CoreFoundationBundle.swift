// CoreFoundation's standard Info.plist keys, which keychain code reads from `Bundle.main.infoDictionary` (the
// bundle identifier is a common default service name). They live here for the reason the CF type names do: users
// cannot import CoreFoundation beside `Security`.
// swift-format-ignore-file: NeverUseImplicitlyUnwrappedOptionals

import Foundation

/// `CFBundleIdentifier`: the bundle's identifier (on Linux `Bundle.main` has one only with an `Info.plist`).
public nonisolated(unsafe) let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"
/// `CFBundleName`: the bundle's short name.
public nonisolated(unsafe) let kCFBundleNameKey: CFString! = "CFBundleName"
/// `CFBundleVersion`: the build version.
public nonisolated(unsafe) let kCFBundleVersionKey: CFString! = "CFBundleVersion"
/// `CFBundleExecutable`: the executable's name.
public nonisolated(unsafe) let kCFBundleExecutableKey: CFString! = "CFBundleExecutable"
/// `CFBundleInfoDictionaryVersion`: the Info.plist format's version.
public nonisolated(unsafe) let kCFBundleInfoDictionaryVersionKey: CFString! = "CFBundleInfoDictionaryVersion"
/// `CFBundleDevelopmentRegion`: the development language.
public nonisolated(unsafe) let kCFBundleDevelopmentRegionKey: CFString! = "CFBundleDevelopmentRegion"
/// `CFBundleLocalizations`: the localizations the bundle has.
public nonisolated(unsafe) let kCFBundleLocalizationsKey: CFString! = "CFBundleLocalizations"
