// The values of kSecAttrAccessible: when an item can be read (DESIGN §2, §4), with Apple's raw values.

import Foundation

/// Readable while the keychain is unlocked (`ak`); the default.
public nonisolated(unsafe) let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable from the first unlock on (`ck`).
public nonisolated(unsafe) let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Always readable (`dk`). Deprecated by Apple; still stored.
public nonisolated(unsafe) let kSecAttrAccessibleAlways: CFString = "dk"
/// Readable while unlocked, and only while a passcode is set (`akpu`); never synchronized. Removing the passcode
/// deletes these items; adding one without a passcode fails with `errSecAuthFailed`.
public nonisolated(unsafe) let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Readable while unlocked (`aku`); never synchronized.
public nonisolated(unsafe) let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable from the first unlock on (`cku`); never synchronized.
public nonisolated(unsafe) let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Always readable (`dku`); never synchronized. Deprecated by Apple; still stored.
public nonisolated(unsafe) let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
