import Foundation

/// The `kSec…` keys and values the dictionary readers and writers compare and set, as Swift strings (the constants
/// are `CFString`s): spelled once, in the constants, and never retyped, so a reader cannot drift from what
/// callers pass.
enum SecItemKeys {
    static let itemClass = kSecClass as String
    static let certificate = kSecClassCertificate as String
    static let key = kSecClassKey as String
    static let identity = kSecClassIdentity as String

    static let synchronizable = kSecAttrSynchronizable as String
    static let synchronizableAny = kSecAttrSynchronizableAny as String
    static let accessControl = kSecAttrAccessControl as String
    static let persistentReferenceAttribute = kSecAttrPersistentReference as String
    static let dataProtectionKeychain = kSecUseDataProtectionKeychain as String

    static let returnData = kSecReturnData as String
    static let returnAttributes = kSecReturnAttributes as String
    static let returnPersistentReference = kSecReturnPersistentRef as String
    static let returnReference = kSecReturnRef as String

    static let matchLimit = kSecMatchLimit as String
    static let matchLimitOne = kSecMatchLimitOne as String
    static let matchLimitAll = kSecMatchLimitAll as String
    static let matchCaseInsensitive = kSecMatchCaseInsensitive as String

    static let valueData = kSecValueData as String
    static let valueReference = kSecValueRef as String
    static let valuePersistentReference = kSecValuePersistentRef as String

    static let useAuthenticationUI = kSecUseAuthenticationUI as String
    static let useAuthenticationUIAllow = kSecUseAuthenticationUIAllow as String
    static let useAuthenticationUIFail = kSecUseAuthenticationUIFail as String
    static let useAuthenticationUISkip = kSecUseAuthenticationUISkip as String
    static let useNoAuthenticationUI = kSecUseNoAuthenticationUI as String
    static let useOperationPrompt = kSecUseOperationPrompt as String
    static let useAuthenticationContext = kSecUseAuthenticationContext as String
}
