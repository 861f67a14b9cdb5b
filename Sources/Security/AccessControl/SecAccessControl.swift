import Foundation
import KeychainCore

/// An item's accessibility plus the authentication its use requires, for ``kSecAttrAccessControl``.
///
/// An item added with a constrained access control is sealed to its factors (DESIGN §11): reading its data asks
/// for the keychain passcode (`.userPresence`, `.devicePasscode`) or its application password, as
/// `SecItemCopyMatching` does on iOS. An access control without flags is the same as its accessibility alone.
/// Immutable, so safe to share.
///
/// Like every CF type it is `Hashable` (Apple's `CFEqual`: the same accessibility and constraints), so it can sit in
/// a `[String: AnyHashable]` query.
public final class SecAccessControl: Sendable, Hashable, CustomStringConvertible {
    /// The accessibility (`pdmn`) the item gets.
    let protectionClass: ProtectionClass
    /// The authentication required to use the item.
    let flags: SecAccessControlCreateFlags

    init(protectionClass: ProtectionClass, flags: SecAccessControlCreateFlags) {
        self.protectionClass = protectionClass
        self.flags = flags
    }

    /// The engine's constraint: Apple's bits, which all fit in 32.
    var constraint: AccessConstraint { AccessConstraint(flagsOf: flags.rawValue) }

    /// The access control of a stored item: its accessibility and its `accc` constraint.
    convenience init?(storedIn attributes: ItemAttributes) {
        guard let value = attributes[.accessControl], let constraint = try? AccessConstraint(attributeValue: value),
            let protectionClass = attributes.string(.accessible).flatMap(ProtectionClass.init(rawValue:))
        else { return nil }
        self.init(
            protectionClass: protectionClass,
            flags: SecAccessControlCreateFlags(rawValue: CFOptionFlags(constraint.flags.rawValue)))
    }

    /// Whether the access control asks for more than an accessibility.
    var isConstrained: Bool { constraint.isConstrained }

    /// Whether two access controls ask for the same accessibility and constraints.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protectionClass == rhs.protectionClass && lhs.flags == rhs.flags
    }

    /// Hashes the accessibility and the constraints.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(protectionClass)
        hasher.combine(flags)
    }

    /// `<SecAccessControl: ak, flags 0x1>`, like Apple's rendering.
    public var description: String {
        "<SecAccessControl: \(protectionClass.rawValue), flags 0x\(String(flags.rawValue, radix: 16))>"
    }
}

/// What using an item protected by a ``SecAccessControl`` requires, with Apple's bit values.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: CFOptionFlags

    /// Creates flags from bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// The device passcode or biometry.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled biometry.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Apple's former name of ``biometryAny``.
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The biometry enrolled now; invalidated when enrolment changes.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Apple's former name of ``biometryCurrentSet``.
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired watch.
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// A paired companion device (the same bit as ``watch``).
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one of the constraints.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// Use of a private key (keys only).
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application-provided password.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// Creates an access control from an accessibility (one of the `kSecAttrAccessible…` values) and flags.
///
/// Returns `nil` when `protection` is not an accessibility value or the flags do not combine by Apple's rules
/// (`.or` with `.and`, both biometry flags, `.userPresence` with anything but `.applicationPassword` and
/// `.privateKeyUsage`), and then sets `error` (when given) to an error with `errSecParam` as its code and a
/// description naming the value. `allocator` is ignored.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    guard let text = protection as? String, let protectionClass = ProtectionClass(rawValue: text) else {
        let detail = "the protection \(String(describing: protection)) is not a kSecAttrAccessible value"
        CFErrorOut.report(EngineError(.param, detail), to: error)
        return nil
    }
    if let problem = flags.combinationProblem {
        CFErrorOut.report(EngineError(.param, "\(problem) (flags: \(flags.names))"), to: error)
        return nil
    }
    return SecAccessControl(protectionClass: protectionClass, flags: flags)
}

extension SecAccessControlCreateFlags {
    /// Why Apple's `SecAccessControlCreateWithFlags` (SecAccessControl.m) refuses these flags with `errSecParam`,
    /// or `nil` when they combine (the engine's one rule, ``AccessConstraint/Flags/combinationProblem``).
    var combinationProblem: String? {
        guard rawValue <= CFOptionFlags(UInt32.max) else {
            return "the access control flags 0x\(String(rawValue, radix: 16)) are unknown"
        }
        return AccessConstraint.Flags(rawValue: UInt32(rawValue)).combinationProblem
    }

    /// The flags' Swift names, for messages: `userPresence, or`.
    var names: String { AccessConstraint.Flags(rawValue: UInt32(truncatingIfNeeded: rawValue)).names }
}
