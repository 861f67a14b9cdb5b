import Foundation
import KeychainCore

/// Who the keychain's items belong to: an application identifier and the ordered access groups it is entitled to,
/// as Apple's `keychain-access-groups` entitlement lists them.
///
/// New items go to the first group; reads see items of every group listed; naming a group that is not listed
/// throws ``KeychainError/missingEntitlement``. `*` entitles every group (an administration tool), and a group
/// ending in `.*` every group with that prefix.
///
/// By default a ``Keychain`` uses ``current()``. Apps that own their keychain may name their identity instead.
public struct ApplicationIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The application identifier, such as `TEAMID.com.example.app`.
    public let applicationIdentifier: String
    /// The access groups, in entitlement order (never empty: without groups the identifier is the only one).
    public let accessGroups: [String]

    /// Creates an identity. Throws ``KeychainError/param`` when the identifier or a group is empty.
    public init(applicationIdentifier: String, accessGroups: [String] = []) throws(KeychainError) {
        guard !applicationIdentifier.isEmpty else {
            throw KeychainError(.param, "the application identifier is empty")
        }
        if let index = accessGroups.firstIndex(where: \.isEmpty) {
            throw KeychainError(.param, "access group \(index + 1) of \(applicationIdentifier) is empty")
        }
        self.init(Caller(applicationIdentifier: applicationIdentifier, accessGroups: accessGroups))
    }

    /// This process's identity, resolved as every module of swift-keychain resolves it: the entitlements plist
    /// named by `KEYCHAIN_ENTITLEMENTS`, else `<executable>.entitlements` beside the executable, else the
    /// executable's name as both identifier and only group. Throws when an entitlements file is unreadable or
    /// malformed.
    public static func current() throws(KeychainError) -> ApplicationIdentity {
        do {
            return ApplicationIdentity(try Caller.current(environment: Keychain.environment))
        } catch {
            throw KeychainError(error, doing: "cannot resolve this process's keychain identity")
        }
    }

    /// `identifier [group, …]`.
    public var description: String { caller.description }

    /// The engine's caller.
    var caller: Caller { Caller(applicationIdentifier: applicationIdentifier, accessGroups: accessGroups) }

    init(_ caller: Caller) {
        applicationIdentifier = caller.applicationIdentifier
        accessGroups = caller.accessGroups
    }
}
