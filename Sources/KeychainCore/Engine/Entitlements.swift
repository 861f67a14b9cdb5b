import Foundation

extension Caller {
    /// The caller described by an Xcode-style `.entitlements` property list: groups are
    /// `keychain-access-groups`, then `application-identifier`, then `com.apple.security.application-groups`.
    /// `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` expand to the application identifier's team prefix.
    public init(entitlements data: Data, executableName: String) throws(EngineError) {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw .param("the entitlements are not a property list: \(error.localizedDescription)")
        }
        guard let entitlements = plist as? [String: Any] else {
            throw .param("the entitlements property list is not a dictionary")
        }
        func strings(_ key: String) throws(EngineError) -> [String] {
            guard let value = entitlements[key] else { return [] }
            guard let list = value as? [String] else {
                throw .param("the entitlement \(key) is not an array of strings")
            }
            return list
        }
        let identifier: String?
        switch entitlements["application-identifier"] {
        case nil: identifier = nil
        case let text as String: identifier = text
        default: throw .param("the entitlement application-identifier is not a string")
        }
        let prefix = identifier.flatMap { id in id.firstIndex(of: ".").map { String(id[...$0]) } } ?? ""
        func expand(_ group: String) -> String {
            group.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: prefix)
                .replacingOccurrences(of: "$(TeamIdentifierPrefix)", with: prefix)
        }
        var groups = try strings("keychain-access-groups").map(expand)
        if let identifier { groups.append(identifier) }
        groups += try strings("com.apple.security.application-groups").map(expand)
        var unique: [String] = []
        for group in groups where !unique.contains(group) { unique.append(group) }
        self.init(applicationIdentifier: identifier ?? executableName, accessGroups: unique)
    }

    /// The caller of the running process: ``resolve(environment:executablePath:)`` for this executable (its real
    /// path, links resolved, so an `.entitlements` file is found beside the real binary).
    public static func current(environment: ProcessEnvironment = .current) throws(EngineError) -> Caller {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "swift-keychain"
        return try resolve(environment: environment, executablePath: executable)
    }

    /// The caller of a process: the plist named by `KEYCHAIN_ENTITLEMENTS`, else `<executable>.entitlements`
    /// beside the executable, else the default identity (application identifier and only group: the executable's
    /// name).
    public static func resolve(environment: ProcessEnvironment, executablePath: String) throws(EngineError) -> Caller {
        let executable = URL(fileURLWithPath: executablePath)
        let name = executable.lastPathComponent
        let path: String
        if let named = environment.nonEmpty("KEYCHAIN_ENTITLEMENTS") {
            path = named
        } else {
            let beside = executable.path + ".entitlements"
            guard FileManager.default.fileExists(atPath: beside) else {
                return Caller(applicationIdentifier: name)
            }
            path = beside
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .param("cannot read the entitlements file \(path)")
        }
        do {
            return try Caller(entitlements: data, executableName: name)
        } catch {
            throw .param("\(path): \(error.message)")
        }
    }
}
