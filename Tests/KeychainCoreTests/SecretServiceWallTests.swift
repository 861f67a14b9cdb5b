import Foundation
import TestSupport
import Testing

@testable import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// keychaind's wall through D-Bus: the Secret Service, registered with `com.swift-keychain.forward-callers` and
/// installed setgid as deployed, asks keychaind for each caller, so a registered app's items are out of reach of the
/// user's other programs whether they ask through D-Bus or not. Real processes in a mount namespace where
/// `/run/swift-keychain` is the test daemon's and `/run/user/UID/bus` a private bus of the test user's: a setgid
/// service takes neither its keychain nor its bus from the environment.
@Suite(
    "The Secret Service behind keychaind's wall: each D-Bus caller is who keychaind says its process is",
    .serialized, .timeLimit(.minutes(3)),
    .enabled(if: Wall.canCreateUsers, Wall.needsRoot),
    .enabled(if: DefaultSocketNamespace.isAvailable, "skipped: this machine cannot make mount namespaces (unshare)"),
    .enabled(
        if: ["dbus-daemon", "busctl", "secret-tool"].allSatisfy { Wall.tool($0) != nil },
        "skipped: dbus-daemon, busctl or secret-tool is missing (scripts/bootstrap installs dbus-daemon, systemd and libsecret-tools)"
    ))
struct SecretServiceWallTests {
    static let appGroups = ["TEAMA.com.example.a"]

    /// Copies `source` into the lab's app directory as `name`, setgid to `group`.
    private static func install(_ source: String, as name: String, in lab: WallLab, setgid group: TestGroup) throws
        -> String
    {
        let path = lab.apps.file(name).path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        guard chown(path, 0, group.gid) == 0, chmod(path, 0o2755) == 0 else {
            throw WallError("cannot install \(path)")
        }
        return path
    }

    @Test(
        "An unregistered program finds only the shared group's items through D-Bus, app A only its own; a path to app A's item reads nothing for another"
    )
    func registeredAppWalledOffThroughDBus() throws {
        let lab = try WallLab()
        let user = try TestUser()
        let (probeGroup, busctlGroup, serviceGroup) = (try TestGroup(), try TestGroup(), try TestGroup())
        let appA = try lab.install("app-a", setgid: probeGroup)
        let plain = try lab.install("plain")
        let busctlA = try Self.install(
            try #require(Wall.tool("busctl")), as: "busctl-a", in: lab, setgid: busctlGroup)
        let service = try Self.install(
            BuiltExecutable.named("keychain-secret-service").path, as: "keychain-secret-service", in: lab,
            setgid: serviceGroup)
        for app in [appA, busctlA] {
            try lab.register(app, identifier: "TEAMA.com.example.a", groups: Self.appGroups)
        }
        try lab.register(
            service, identifier: "org.freedesktop.secrets", groups: ["org.freedesktop.secrets"],
            more: ["com.swift-keychain.forward-callers": true])
        #expect(try lab.line(appA, as: user, ["add", "of-a", "secret-a"]).code == nil)
        #expect(try lab.line(plain, as: user, ["add", "of-plain", "secret-plain"]).code == nil)

        let run = "/run/user/\(user.uid)"
        let bus = "unix:path=\(run)/bus"
        let switchUser = user.command([]).joined(separator: " ")
        let busctl = try #require(Wall.tool("busctl"))
        let search =
            "call org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service "
            + "SearchItems 'a{ss}' 1 service probe"
        // The service is told a bogus bus and keychain: set up as deployed, it must use the user's own.
        let script = """
            mkdir -p \(run) && chown \(user.uid):\(user.gid) \(run) && chmod 700 \(run) || exit 1
            \(switchUser) \(Wall.tool("dbus-daemon") ?? "dbus-daemon") --session --address=\(bus) --nofork \
              --nopidfile >/dev/null 2>&1 &
            BUS=$!
            i=0; while [ ! -S \(run)/bus ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            \(switchUser) env -i SWIFT_BACKTRACE=enable=no DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent \
              KEYCHAIN_HOME=/nonexistent \(service) 2>\(lab.apps.url.path)/service.log &
            SERVICE=$!
            i=0; while ! \(switchUser) \(busctl) --address=\(bus) status org.freedesktop.secrets >/dev/null 2>&1 \
              && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            A=$(\(switchUser) \(busctlA) --address=\(bus) \(search) 2>&1)
            echo "A: $A"
            echo "PLAIN: $(\(switchUser) \(busctl) --address=\(bus) \(search) 2>&1)"
            echo "TOOL: $(\(switchUser) env DBUS_SESSION_BUS_ADDRESS=\(bus) secret-tool search --all service probe \
              2>&1 | tr '\\n' ' ')"
            APATH=$(echo "$A" | grep -o '"/org[^"]*"' | head -1 | tr -d '"')
            echo "STEAL: $(\(switchUser) \(busctl) --address=\(bus) get-property org.freedesktop.secrets "$APATH" \
              org.freedesktop.Secret.Item Attributes 2>&1)"
            kill -9 $SERVICE $BUS
            wait
            """
        let command = DefaultSocketNamespace.command(
            socketDirectory: lab.daemon.directory.url.path, ["/bin/sh", "-c", script])
        let result = try Wall.run(command)
        let log = (try? String(contentsOf: lab.apps.file("service.log"), encoding: .utf8)) ?? ""
        var lines: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            lines[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let context = "output: \(result.output) errors: \(result.errors) service: \(log)"
        // Each SearchItems reply is `aoao N paths… M paths…`: the unlocked items first.
        let a = try #require(lines["A"], "\(context)")
        let plainSeen = try #require(lines["PLAIN"], "\(context)")
        #expect(a.hasPrefix("aoao 1 "), "app A through D-Bus: \(context)")
        #expect(plainSeen.hasPrefix("aoao 1 "), "the unregistered program through D-Bus: \(context)")
        #expect(a != plainSeen, "app A and the unregistered program found the same item: \(context)")
        let tool = try #require(lines["TOOL"], "\(context)")
        #expect(tool.contains("secret = secret-plain"), "secret-tool: \(context)")
        #expect(!tool.contains("secret-a"), "secret-tool read app A's secret: \(context)")
        let steal = try #require(lines["STEAL"], "\(context)")
        #expect(!steal.contains("of-a"), "an unregistered program read app A's item by its path: \(context)")
    }
}
