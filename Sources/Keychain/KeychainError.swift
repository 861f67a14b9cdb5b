import Foundation
import KeychainCore

/// The one error the `Keychain` API throws: Apple's `OSStatus` for what went wrong and a message that names the
/// cause (the key, the attribute, the protection class or the access group at fault).
///
/// Only a missing item is not an error where an optional answer says it (`get(_:)` returns `nil`);
/// a locked keychain (``interactionNotAllowed``), a missing entitlement, a wrong passcode, a damaged or altered
/// item (``decode``) and a bad parameter are always thrown.
///
/// Errors compare by ``status`` alone, so new statuses can be added without breaking a caller's checks (the shape
/// `FileProtectionError` shares, KeychainCore's `StatusError`):
///
/// ```swift
/// do {
///     token = try keychain.get("token")
/// } catch .interactionNotAllowed {
///     // locked: ask the user to unlock, do not sign them out
/// } catch {
///     log(error.message)
/// }
/// ```
///
/// End such a `do` with a plain `catch`: Swift 6.3's compiler crashes on a typed-throws `do` whose `catch`
/// clauses let some errors through (swiftlang/swift#89787, fixed in later releases).
public struct KeychainError: StatusError {
    /// Apple's `OSStatus` value, such as `-25308` for `errSecInteractionNotAllowed`.
    public let status: Int32
    /// What went wrong, naming the key or value at fault.
    public let message: String

    /// Creates an error with a status and a message.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// Matches any error that is a `KeychainError` with this status, so `catch KeychainError.decode` works whatever the thrown
    /// type.
    public static func ~= (pattern: KeychainError, value: any Error) -> Bool { pattern.matches(value) }

    /// `errSecItemNotFound` (-25300): no item matched.
    public static let itemNotFound = KeychainError(.itemNotFound, "no item matches")
    /// `errSecDuplicateItem` (-25299): an item with the same key already exists.
    public static let duplicateItem = KeychainError(.duplicateItem, "an item with the same key already exists")
    /// `errSecInteractionNotAllowed` (-25308): the keychain is locked and the item's protection class needs it
    /// unlocked (or passcode entry is suspended after wrong passcodes).
    public static let interactionNotAllowed = KeychainError(
        .interactionNotAllowed, "the item is unavailable while the keychain is locked")
    /// `errSecMissingEntitlement` (-34018): the caller is not entitled to the access group.
    public static let missingEntitlement = KeychainError(
        .missingEntitlement, "the caller is not entitled to the access group")
    /// `errSecAuthFailed` (-25293): the passcode is wrong, or the item needs a passcode and none is set.
    public static let authFailed = KeychainError(.authFailed, "authentication failed")
    /// The user canceled the authentication an item's access control asked for (`errSecUserCanceled`).
    public static let userCanceled = KeychainError(.userCanceled, "the user canceled the authentication")
    /// `errSecDecode` (-26275): a stored item failed authentication (it was altered or moved), or its data does
    /// not decode as the requested type.
    public static let decode = KeychainError(.decode, "the item cannot be decoded")
    /// `errSecParam` (-50): a parameter is malformed or not allowed.
    public static let param = KeychainError(.param, "a parameter is not valid")
    /// `errSecNoSuchAttr` (-25303): the attribute does not exist for the item's class.
    public static let noSuchAttribute = KeychainError(.noSuchAttribute, "the attribute does not exist")
    /// `errSecDataTooLarge` (-25302): the secret or the attributes are too large.
    public static let dataTooLarge = KeychainError(.dataTooLarge, "the data is too large")
    /// `errSecIO` (-36): the file system or the database failed.
    public static let ioError = KeychainError(.ioError, "an I/O error occurred")
    /// `errSecDiskFull` (-34): the disk is full.
    public static let diskFull = KeychainError(.diskFull, "the disk is full")
    /// `errSecWrPerm` (-61): the keychain is read-only (its database file or file system does not allow writing);
    /// reading it still works.
    public static let writePermission = KeychainError(.writePermission, "the keychain is read-only")
    /// `errSecAllocate` (-108): memory could not be allocated or locked.
    public static let allocate = KeychainError(.allocate, "memory could not be allocated")
    /// `errSecInvalidKeychain` (-25295): the keychain's files are not a valid keychain.
    public static let invalidKeychain = KeychainError(.invalidKeychain, "the keychain is not valid")
    /// `errSecNotAvailable` (-25291): no keychain is available.
    public static let notAvailable = KeychainError(.notAvailable, "no keychain is available")
    /// `errSecInternalComponent` (-2070): an internal component failed.
    public static let internalComponent = KeychainError(.internalComponent, "an internal component failed")
    /// `errSecUnimplemented` (-4): the operation is not implemented.
    public static let unimplemented = KeychainError(.unimplemented, "the operation is not implemented")

}

extension KeychainError {
    /// The single mapping from the engine's error: its status kept, its message prefixed by what was being done.
    init(_ error: EngineError, doing context: String) {
        self.init(error, prefix: context)
    }

    /// Whether the error is the engine's "no item matched".
    static func isNotFound(_ error: EngineError) -> Bool { error.code == .itemNotFound }
}
