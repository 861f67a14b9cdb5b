import Foundation
import KeychainCore

/// When a protected file can be created and read: Apple's four file protection classes, tied to the keychain's
/// lock state.
///
/// | class | create | read |
/// |---|---|---|
/// | ``complete`` | while unlocked | while unlocked |
/// | ``completeUnlessOpen`` | always | while unlocked; a handle opened then keeps working after a lock |
/// | ``completeUntilFirstUserAuthentication`` | from the first unlock on | from the first unlock on |
/// | ``none`` | always | always |
///
/// A keychain without a passcode is always unlocked. The raw value is Foundation's name for the class
/// (`FileProtectionType.complete` is `"complete"`), which the `security` CLI also takes.
public enum FileProtectionClass: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Always readable: the file key is protected by the device key alone (`NSFileProtectionNone`).
    case none
    /// Readable and writable only while the keychain is unlocked (`NSFileProtectionComplete`).
    case complete
    /// Creatable while locked, readable only while unlocked; a handle opened while unlocked keeps working after a
    /// lock (`NSFileProtectionCompleteUnlessOpen`).
    case completeUnlessOpen
    /// Available from the first unlock on, until the keychain is closed
    /// (`NSFileProtectionCompleteUntilFirstUserAuthentication`).
    case completeUntilFirstUserAuthentication

    /// The class a file gets when none is named: ``completeUntilFirstUserAuthentication``, as on iOS.
    public static let `default` = FileProtectionClass.completeUntilFirstUserAuthentication

    /// The class with Foundation's name `name` (`"complete"`, …), as the `security` CLI takes it; throws
    /// ``FileProtectionError/param`` naming the valid names otherwise.
    public init(named name: String) throws(FileProtectionError) {
        guard let named = FileProtectionClass(rawValue: name) else {
            let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw FileProtectionError(.param, "unknown file protection class \"\(name)\": use one of \(names)")
        }
        self = named
    }

    /// The class of a Foundation protection type, or `nil` for a type this library does not know.
    public init?(_ type: FileProtectionType) {
        // Foundation's type is not Equatable on Linux: compare the raw values.
        guard let match = Self.allCases.first(where: { $0.fileProtectionType.rawValue == type.rawValue }) else {
            return nil
        }
        self = match
    }

    /// The class named by the protection bits of Foundation's writing options: ``default`` when they name none,
    /// `nil` when they are not one of the four.
    public init?(_ options: Data.WritingOptions) {
        switch options.intersection(.fileProtectionMask) {
        case []: self = .default
        case .noFileProtection: self = .none
        case .completeFileProtection: self = .complete
        case .completeFileProtectionUnlessOpen: self = .completeUnlessOpen
        case .completeFileProtectionUntilFirstUserAuthentication: self = .completeUntilFirstUserAuthentication
        default: return nil
        }
    }

    /// Foundation's protection type for this class.
    public var fileProtectionType: FileProtectionType {
        switch self {
        case .none: .none
        case .complete: .complete
        case .completeUnlessOpen: .completeUnlessOpen
        case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
        }
    }

    /// Foundation's name of the class, the raw value.
    public var description: String { rawValue }

    /// The keybag class that protects files of this class.
    var keyClass: FileKeyClass {
        switch self {
        case .complete: .classA
        case .completeUnlessOpen: .classB
        case .completeUntilFirstUserAuthentication: .classC
        case .none: .classD
        }
    }

    /// The file class a keybag class protects.
    init(_ keyClass: FileKeyClass) {
        switch keyClass {
        case .classA: self = .complete
        case .classB: self = .completeUnlessOpen
        case .classC: self = .completeUntilFirstUserAuthentication
        case .classD: self = .none
        }
    }
}
