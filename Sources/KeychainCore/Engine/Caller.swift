/// Who is calling: an application identifier and the ordered access groups it is entitled to (DESIGN §5).
///
/// Apple's rules: an add without an access group goes to the first group; an explicit group the caller lacks is
/// `errSecMissingEntitlement`; a query without a group sees only the caller's groups. `*` entitles every group
/// (the owner's administration tool); a group ending in `.*` entitles every group with that prefix.
public struct Caller: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The application identifier (`application-identifier`).
    public var applicationIdentifier: String
    /// The access groups, in entitlement order.
    public var accessGroups: [String]

    /// Creates a caller; with no groups, the application identifier is its only group.
    public init(applicationIdentifier: String, accessGroups: [String] = []) {
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups.isEmpty ? [applicationIdentifier] : accessGroups
    }

    /// A caller entitled to every group, adding to `defaultGroup` when an add names none.
    public static func administrator(defaultGroup: String) -> Caller {
        Caller(applicationIdentifier: defaultGroup, accessGroups: [defaultGroup, "*"])
    }

    /// Whether the caller is entitled to `group`.
    public func canAccess(_ group: String) -> Bool {
        accessGroups.contains { entitlement in
            if entitlement == "*" || entitlement == group { return true }
            guard entitlement.hasSuffix(".*") else { return false }
            return group.hasPrefix(entitlement.dropLast())
        }
    }

    /// The group an add without an access group goes to: the first group that names one group.
    public var defaultGroup: String {
        accessGroups.first { !Self.isWildcard($0) } ?? applicationIdentifier
    }

    /// The groups a query without an access group searches, or `nil` when a wildcard makes them open-ended.
    var exactGroups: [String]? {
        accessGroups.contains(where: Self.isWildcard) ? nil : accessGroups
    }

    static func isWildcard(_ group: String) -> Bool {
        group.utf8.contains(UInt8(ascii: "*"))
    }

    /// Checks an explicit access group.
    func checkEntitlement(to group: String) throws(EngineError) {
        guard canAccess(group) else {
            throw EngineError(
                .missingEntitlement,
                "the caller \(applicationIdentifier) is not entitled to access group \"\(group)\" (it has: \(accessGroups.joined(separator: ", ")))"
            )
        }
    }

    /// `app-id [group, …]`.
    public var description: String { "\(applicationIdentifier) \(accessGroups)" }
}
