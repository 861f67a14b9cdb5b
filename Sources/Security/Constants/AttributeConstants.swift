// The attribute keys of generic and internet passwords, with Apple's four-character raw values
// (SecItemConstants.c). Text attributes take `String`, numbers `Int` or `NSNumber`, flags `Bool`, dates `Date`.
// Apple's blob attributes (account, service, generic, label, description, comment, server, security domain,
// authentication type, path) take `String` or `Data`, keep what they were given, and match as bytes.

import Foundation

/// When the item can be read: one of the `kSecAttrAccessible…` values (default: when unlocked).
public nonisolated(unsafe) let kSecAttrAccessible: CFString = "pdmn"
/// A ``SecAccessControl`` that sets the item's accessibility and, later, the authentication it requires.
public nonisolated(unsafe) let kSecAttrAccessControl: CFString = "accc"
/// The access group the item belongs to (default: the caller's first group).
public nonisolated(unsafe) let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item is synchronized between the user's devices: `true`, `false` (the default), or, in a query,
/// ``kSecAttrSynchronizableAny``. A `…ThisDeviceOnly` item may be synchronizable, as on iOS: it stays on this device.
public nonisolated(unsafe) let kSecAttrSynchronizable: CFString = "sync"
/// In a query, matches synchronizable and local items alike.
public nonisolated(unsafe) let kSecAttrSynchronizableAny: CFString = "syna"
/// When the item was created (`Date`; set by the keychain).
public nonisolated(unsafe) let kSecAttrCreationDate: CFString = "cdat"
/// When the item was last modified (`Date`; set by the keychain).
public nonisolated(unsafe) let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description of the kind of item (`String` or `Data`).
public nonisolated(unsafe) let kSecAttrDescription: CFString = "desc"
/// A user-editable comment (`String` or `Data`).
public nonisolated(unsafe) let kSecAttrComment: CFString = "icmt"
/// The item's creator, a four-character code as a number.
public nonisolated(unsafe) let kSecAttrCreator: CFString = "crtr"
/// The item's type, a four-character code as a number.
public nonisolated(unsafe) let kSecAttrType: CFString = "type"
/// A user-visible label (`String` or `Data`).
public nonisolated(unsafe) let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from users (`Bool`).
public nonisolated(unsafe) let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item holds no valid password (`Bool`).
public nonisolated(unsafe) let kSecAttrIsNegative: CFString = "nega"
/// The account name (`String` or `Data`); part of both classes' primary key.
public nonisolated(unsafe) let kSecAttrAccount: CFString = "acct"
/// The service (`String` or `Data`) of a generic password; part of its primary key.
public nonisolated(unsafe) let kSecAttrService: CFString = "svce"
/// Application-defined data (`Data` or `String`) of a generic password.
public nonisolated(unsafe) let kSecAttrGeneric: CFString = "gena"
/// The security domain or realm (`String` or `Data`) of an internet password; part of its primary key.
public nonisolated(unsafe) let kSecAttrSecurityDomain: CFString = "sdmn"
/// The server's host name or address (`String` or `Data`) of an internet password; part of its primary key.
public nonisolated(unsafe) let kSecAttrServer: CFString = "srvr"
/// The protocol of an internet password: one of the `kSecAttrProtocol…` values; part of its primary key.
public nonisolated(unsafe) let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme of an internet password: one of the `kSecAttrAuthenticationType…` values; part of its
/// primary key.
public nonisolated(unsafe) let kSecAttrAuthenticationType: CFString = "atyp"
/// The port (`Int`) of an internet password; part of its primary key.
public nonisolated(unsafe) let kSecAttrPort: CFString = "port"
/// The path (`String` or `Data`) of an internet password; part of its primary key.
public nonisolated(unsafe) let kSecAttrPath: CFString = "path"
/// The item's persistent reference as an attribute. As on Apple's platforms, ignored in every dictionary: use
/// ``kSecValuePersistentRef`` to find an item by its reference.
public nonisolated(unsafe) let kSecAttrPersistentReference: CFString = "persistref"
/// Apple's original spelling of ``kSecAttrPersistentReference``.
public nonisolated(unsafe) let kSecAttrPersistantReference: CFString = "persistref"
