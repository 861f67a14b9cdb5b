import Foundation

/// What using an item's secret requires beyond its protection class: Apple's `SecAccessControlCreateFlags`, as the
/// engine stores and enforces them (DESIGN §11).
///
/// On Linux the user proves presence by typing the keychain passcode: ``Flags/userPresence`` and
/// ``Flags/devicePasscode`` ask for it, ``Flags/applicationPassword`` for a password of the item's own. There is no
/// biometric sensor, so a biometry or companion constraint can never be satisfied here (as on a device without
/// one); with ``Flags/or`` another factor still opens the item.
public struct AccessConstraint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Apple's flag bits (`SecAccessControlCreateFlags`).
    public struct Flags: OptionSet, Sendable, Hashable, Codable {
        /// The bits, with Apple's values.
        public let rawValue: UInt32

        /// Creates flags from Apple's bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The device passcode or biometry: the keychain passcode here.
        public static let userPresence = Flags(rawValue: 1 << 0)
        /// Any enrolled biometry (never available on Linux).
        public static let biometryAny = Flags(rawValue: 1 << 1)
        /// The biometry enrolled now (never available on Linux).
        public static let biometryCurrentSet = Flags(rawValue: 1 << 3)
        /// The device passcode: the keychain passcode here.
        public static let devicePasscode = Flags(rawValue: 1 << 4)
        /// A paired watch or companion device (never available on Linux).
        public static let companion = Flags(rawValue: 1 << 5)
        /// Any one of the constraints opens the item.
        public static let or = Flags(rawValue: 1 << 14)
        /// Every constraint is needed (also the meaning of several constraints without ``or``).
        public static let and = Flags(rawValue: 1 << 15)
        /// Use of a private key (keys only; no factor for a password item).
        public static let privateKeyUsage = Flags(rawValue: 1 << 30)
        /// A password of the item's own, supplied by the application or typed at the prompt.
        public static let applicationPassword = Flags(rawValue: 1 << 31)

        /// Every bit Apple defines.
        static let known: Flags = [
            .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion, .or, .and,
            .privateKeyUsage, .applicationPassword,
        ]

        /// Why Apple's `SecAccessControlCreateWithFlags` (SecAccessControl.m) refuses these flags with
        /// `errSecParam`, in its order and words, or `nil` when they combine: an unknown bit; `.or` with `.and`;
        /// both biometry flags; `.userPresence` with anything but `.applicationPassword` and `.privateKeyUsage`.
        public var combinationProblem: String? {
            if !subtracting(Self.known).isEmpty {
                return "the access control flags 0x\(String(subtracting(Self.known).rawValue, radix: 16)) are unknown"
            }
            if contains(.or) && contains(.and) { return "only one logical operation can be set" }
            if contains(.biometryAny) && contains(.biometryCurrentSet) { return "only one bio constraint can be set" }
            if contains(.userPresence), !subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty {
                return "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword "
                    + "and kSecAccessControlPrivateKeyUsage"
            }
            return nil
        }

        /// The flags' Swift names, for messages: `userPresence, or`.
        public var names: String {
            let named: [(Flags, String)] = [
                (.userPresence, "userPresence"), (.biometryAny, "biometryAny"),
                (.biometryCurrentSet, "biometryCurrentSet"), (.devicePasscode, "devicePasscode"),
                (.companion, "companion"), (.or, "or"), (.and, "and"), (.privateKeyUsage, "privateKeyUsage"),
                (.applicationPassword, "applicationPassword"),
            ]
            var names = named.filter { contains($0.0) }.map(\.1)
            let unknown = subtracting(Self.known)
            if !unknown.isEmpty { names.append("0x" + String(unknown.rawValue, radix: 16)) }
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
    }

    /// The flags.
    public var flags: Flags

    /// Creates a constraint, refusing flags Apple refuses (``Flags/combinationProblem``) with
    /// ``EngineError/Code/param``.
    public init(flags: Flags) throws(EngineError) {
        if let problem = flags.combinationProblem {
            throw EngineError(.param, "\(problem) (access control flags: \(flags.names))")
        }
        self.flags = flags
    }

    /// The factors the constraint names, in a fixed order (each once).
    public var factors: [AccessFactor] {
        var factors: [AccessFactor] = []
        if !flags.isDisjoint(with: [.userPresence, .devicePasscode]) { factors.append(.passcode) }
        if flags.contains(.applicationPassword) { factors.append(.applicationPassword) }
        if !flags.isDisjoint(with: [.biometryAny, .biometryCurrentSet]) { factors.append(.biometry) }
        if flags.contains(.companion) { factors.append(.companion) }
        return factors
    }

    /// Whether any one factor opens the item (``Flags/or``) rather than all of them.
    public var needsAnyFactor: Bool { flags.contains(.or) }

    /// Whether reading the secret needs a factor at all (``Flags/privateKeyUsage`` alone does not).
    public var isConstrained: Bool { !factors.isEmpty }

    /// The factors this machine can ever supply: the passcode and an application password.
    public var satisfiableFactors: [AccessFactor] { factors.filter(\.isAvailable) }

    /// Whether some set of available factors opens the item.
    public var isSatisfiable: Bool {
        needsAnyFactor ? !satisfiableFactors.isEmpty : factors.allSatisfy(\.isAvailable)
    }

    /// Whether flags stored with an item leave the passcode as the only way to open it: passcode removal deletes
    /// such items with the passcode factor.
    static func opensOnlyWithPasscode(flags raw: UInt32) -> Bool {
        let constraint = AccessConstraint(unchecked: Flags(rawValue: raw))
        let others = constraint.satisfiableFactors.filter { $0 != .passcode }
        return constraint.factors.contains(.passcode) && (!constraint.needsAnyFactor || others.isEmpty)
    }

    /// Flags read back from storage, whose combination was checked when the item was added.
    init(unchecked flags: Flags) { self.flags = flags }

    /// The constraint of flags already checked by Apple's rules (a `SecAccessControl`'s, which
    /// `SecAccessControlCreateWithFlags` checked).
    package init(flagsOf bits: some FixedWidthInteger) {
        self.flags = Flags(rawValue: UInt32(truncatingIfNeeded: bits))
    }

    /// `userPresence` or `applicationPassword, or`.
    public var description: String { flags.names }

    /// The constraint as the `accc` attribute carries it in a request: a version byte and the flags.
    public var attributeValue: AttributeValue {
        var bytes: [UInt8] = [1]
        bytes.appendLittleEndian(flags.rawValue)
        return .data(Data(bytes))
    }

    /// Reads the `accc` attribute (a request's, or a stored item's, which also carries the sealed secret's digest).
    public init(attributeValue value: AttributeValue) throws(EngineError) {
        guard let bytes = value.dataValue, bytes.count >= 5, bytes.first == 1 else {
            throw EngineError(
                .param, "the access control (accc) \(value) is not an access constraint from AccessConstraint")
        }
        let raw = bytes.dropFirst().prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.1) << (8 * $1.0) }
        try self.init(flags: Flags(rawValue: raw))
    }
}

/// One thing a user can present to open an item with an ``AccessConstraint``.
public enum AccessFactor: String, Sendable, Hashable, Codable, CaseIterable {
    /// The keychain passcode (for `.userPresence` and `.devicePasscode`).
    case passcode
    /// The item's application password.
    case applicationPassword
    /// Biometry: no sensor exists on Linux, so it is never available.
    case biometry
    /// A paired watch or companion device: never available on Linux.
    case companion

    /// Whether this machine can supply the factor at all.
    public var isAvailable: Bool { self == .passcode || self == .applicationPassword }
}
