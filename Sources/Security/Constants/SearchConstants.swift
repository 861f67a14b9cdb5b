// The keys that say what a call matches, returns and uses, with Apple's raw values (SecItemConstants.c).

import Foundation

/// How many items `SecItemCopyMatching` returns: ``kSecMatchLimitOne`` (the default), ``kSecMatchLimitAll`` or a
/// positive number. Only a limit of one returns a single object; any other returns an array. Not accepted by
/// `SecItemAdd` or `SecItemUpdate` (`errSecParam`); `SecItemDelete` accepts only ``kSecMatchLimitAll`` (it deletes
/// every match anyway), as macOS ignores a delete's limit.
public nonisolated(unsafe) let kSecMatchLimit: CFString = "m_Limit"
/// The limit of one item, returned alone.
public nonisolated(unsafe) let kSecMatchLimitOne: CFString = "m_LimitOne"
/// No limit: every match, in an array.
public nonisolated(unsafe) let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Whether text attributes match ignoring case (`Bool`, `SecItemCopyMatching` only).
public nonisolated(unsafe) let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"

/// Return the item's secret (`Bool`).
public nonisolated(unsafe) let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes as a dictionary (`Bool`).
public nonisolated(unsafe) let kSecReturnAttributes: CFString = "r_Attributes"
/// Return an item reference (`Bool`). Password items have none: `true` returns the dictionary of the class, the
/// attributes and the data, as Apple's server does.
public nonisolated(unsafe) let kSecReturnRef: CFString = "r_Ref"
/// Return the item's persistent reference (`Bool`): `Data` that finds the item again across runs.
public nonisolated(unsafe) let kSecReturnPersistentRef: CFString = "r_PersistentRef"

/// The item's secret (`Data`). Stored by `SecItemAdd` and changed by `SecItemUpdate`'s attributes; in a query it is
/// not a match criterion (as on Apple's platforms), though it must still be `Data`.
public nonisolated(unsafe) let kSecValueData: CFString = "v_Data"
/// An item reference. Password items have none here: any value is `errSecParam`.
public nonisolated(unsafe) let kSecValueRef: CFString = "v_Ref"
/// A persistent reference (`Data`, from ``kSecReturnPersistentRef``): the query matches that one item and needs no
/// class.
public nonisolated(unsafe) let kSecValuePersistentRef: CFString = "v_PersistentRef"

/// Whether the call may ask the user to authenticate: ``kSecUseAuthenticationUIAllow`` (the default),
/// ``kSecUseAuthenticationUIFail`` or ``kSecUseAuthenticationUISkip``.
public nonisolated(unsafe) let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// The call may ask the user to authenticate.
public nonisolated(unsafe) let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// The call fails with `errSecInteractionNotAllowed` instead of asking the user to authenticate.
public nonisolated(unsafe) let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// `SecItemCopyMatching` skips items that need authentication (any other call: `errSecParam`).
public nonisolated(unsafe) let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// An authentication context (any object, such as an `LAContext`) that a later access-control issue will reuse.
public nonisolated(unsafe) let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// The reason shown when the user is asked to authenticate (`String`).
public nonisolated(unsafe) let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Deprecated by Apple for ``kSecUseAuthenticationUI``: `true` acts as ``kSecUseAuthenticationUIFail``.
public nonisolated(unsafe) let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// Use the data-protection keychain (`Bool`). This keychain is one, so the key is accepted and ignored, as Apple's
/// server does.
public nonisolated(unsafe) let kSecUseDataProtectionKeychain: CFString = "nleg"
