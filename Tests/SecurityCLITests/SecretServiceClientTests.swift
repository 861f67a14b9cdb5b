import Foundation
import TestSupport
import Testing

/// What real programs store through libsecret (`secret-tool`, and the schemas of Chromium and git's credential
/// helper), and the same items through the keychain's own tool, both ways.
@Suite(
    "Secret Service: secret-tool round trips, Chromium's and git's schemas, the security tool both ways",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool"),
        "dbus-daemon or secret-tool is not installed (scripts/bootstrap installs them)"))
struct SecretServiceClientTests {
    static let security = BuiltExecutable.named("security").path

    /// `count` random printable ASCII characters (no newline, which secret-tool would keep).
    static func randomText(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/=-_.,;:!?")
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    @Test("store / lookup / search / clear with Unicode attribute names, values and label; 8 KiB and 64 KiB secrets")
    func unicodeAndLargeSecrets() throws {
        let bus = try SecretServiceBus()
        // secret-tool's store reads at most 8 KiB; the whole of it round-trips.
        let secret = Self.randomText(8 * 1024 - 1)
        let attributes = ["dienst", "Straße-🔑", "benutzer", "名前-ユーザー", "note", "ça marche"]
        let stored = try bus.secretTool(["store", "--label=Clé ünïcode 🔐"] + attributes, input: secret)
        #expect(stored.status == 0, "\(stored.errors)")
        let looked = try bus.secretTool(["lookup"] + attributes)
        #expect(looked.status == 0, "\(looked.errors)")
        let same = looked.output == secret
        #expect(same, "\(looked.output.utf8.count) bytes back of \(secret.utf8.count)")
        // A search by one Unicode pair lists the item, its label and attributes intact.
        let searched = try bus.secretTool(["search", "--all", "benutzer", "名前-ユーザー"])
        let listing = searched.output + searched.errors
        #expect(listing.contains("label = Clé ünïcode 🔐"), "\(listing)")
        #expect(listing.contains("attribute.dienst = Straße-🔑"), "\(listing)")
        #expect(listing.contains("attribute.note = ça marche"), "\(listing)")
        // A value that differs by one character finds nothing.
        #expect(try bus.secretTool(["lookup", "dienst", "Strasse-🔑"]).status != 0)
        #expect(try bus.secretTool(["clear", "benutzer", "名前-ユーザー"]).status == 0)
        #expect(try bus.secretTool(["lookup"] + attributes).status != 0)
        // 64 KiB: stored through secretstorage's encrypted session, read whole by secret-tool, and back.
        guard PythonClients.secretStorage else { return }
        let large = Self.randomText(64 * 1024)
        let file = bus.directory.file("large")
        try Data(large.utf8).write(to: file)
        let created = try bus.python(
            """
            import sys, secretstorage
            bus = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(bus)
            collection.create_item('Große', {'größe': '64 KiB', 'ключ': 'значение'}, open(sys.argv[1], 'rb').read())
            """, [file.path])
        #expect(created.status == 0, "\(created.errors)")
        let read = try bus.secretTool(["lookup", "größe", "64 KiB", "ключ", "значение"])
        let whole = read.output == large
        #expect(whole, "\(read.output.utf8.count) bytes back of \(large.utf8.count): \(read.errors)")
    }

    @Test("Chromium's chrome_libsecret_os_crypt_password_v2 and git's org.gnome.keyring.NetworkPassword items")
    func applicationSchemas() throws {
        let bus = try SecretServiceBus()
        // libsecret stores a schema's name as the attribute xdg:schema and matches it on lookup.
        let chromium = ["xdg:schema", "chrome_libsecret_os_crypt_password_v2", "application", "chromium"]
        let chrome = ["xdg:schema", "chrome_libsecret_os_crypt_password_v2", "application", "chrome"]
        let git = [
            "xdg:schema", "org.gnome.keyring.NetworkPassword", "user", "alice", "server", "github.com", "protocol",
            "https",
        ]
        #expect(
            try bus.secretTool(["store", "--label=Chromium Safe Storage"] + chromium, input: "chromium-key").status == 0
        )
        #expect(try bus.secretTool(["store", "--label=Chrome Safe Storage"] + chrome, input: "chrome-key").status == 0)
        #expect(
            try bus.secretTool(["store", "--label=Git: https://github.com/"] + git, input: "ghp_token").status == 0)
        #expect(try bus.secretTool(["lookup"] + chromium).output == "chromium-key")
        #expect(try bus.secretTool(["lookup"] + chrome).output == "chrome-key")
        // git's helper looks up by a subset (no port, no object), and finds the one item of that server and user.
        #expect(
            try bus.secretTool([
                "lookup", "xdg:schema", "org.gnome.keyring.NetworkPassword", "server", "github.com", "user", "alice",
            ]).output == "ghp_token")
        #expect(
            try bus.secretTool(["lookup", "xdg:schema", "org.gnome.keyring.NetworkPassword", "user", "bob"]).status != 0
        )
        // Chromium rewrites its key: the same attributes replace the item instead of adding a second one.
        #expect(
            try bus.secretTool(["store", "--label=Chromium Safe Storage"] + chromium, input: "rotated").status == 0)
        let searched = try bus.secretTool(["search", "--all", "application", "chromium"])
        #expect(searched.output.components(separatedBy: "label = ").count == 2, "\(searched.output)")
        #expect(try bus.secretTool(["lookup"] + chromium).output == "rotated")
        // git's erase.
        #expect(try bus.secretTool(["clear"] + git).status == 0)
        #expect(try bus.secretTool(["lookup", "server", "github.com"]).status != 0)
        #expect(try bus.secretTool(["lookup"] + chrome).output == "chrome-key")
    }

    @Test("secret-tool's item read by security find-generic-password -w, and the security tool's item by secret-tool")
    func securityToolBothWays() throws {
        let bus = try SecretServiceBus()
        // Secret Service → keychain: a map naming a service and an account is that generic password.
        #expect(
            try bus.secretTool(
                ["store", "--label=Mail", "service", "imap.example.org", "username", "zoë", "protocol", "imap"],
                input: "from-secret-tool"
            ).status == 0)
        let found = try bus.run(Self.security, ["find-generic-password", "-s", "imap.example.org", "-a", "zoë", "-w"])
        #expect(found.status == 0 && found.output == "from-secret-tool\n", "\(found.errors)")
        // Keychain → Secret Service: a generic password the security tool adds to the service's group (the tool's own
        // group is "security") is the map of its service and account.
        let added = try bus.run(
            Self.security,
            [
                "add-generic-password", "--access-group", "login", "-s", "smtp.example.org", "-a", "zoë", "-l",
                "Outgoing", "-w", "from-security",
            ])
        #expect(added.status == 0, "\(added.errors)")
        let looked = try bus.secretTool(["lookup", "service", "smtp.example.org", "username", "zoë"])
        #expect(looked.status == 0 && looked.output == "from-security", "\(looked.errors)")
        // The security tool updates the Secret Service's item; secret-tool sees the new secret, and back.
        let updated = try bus.run(
            Self.security,
            [
                "add-generic-password", "-U", "--access-group", "login", "-s", "imap.example.org", "-a", "zoë", "-w",
                "rotated-by-security",
            ])
        #expect(updated.status == 0, "\(updated.errors)")
        #expect(
            try bus.secretTool(["lookup", "service", "imap.example.org", "username", "zoë"]).output
                == "rotated-by-security")
        #expect(
            try bus.secretTool(
                ["store", "--label=Outgoing", "service", "smtp.example.org", "username", "zoë"],
                input: "rotated-by-secret-tool"
            )
            .status == 0)
        let reread = try bus.run(Self.security, ["find-generic-password", "-s", "smtp.example.org", "-a", "zoë", "-w"])
        #expect(reread.output == "rotated-by-secret-tool\n", "\(reread.errors)")

        // A Swift program's own SecItem calls (an app entitled to the group `login`): it reads what secret-tool
        // stored, and secret-tool reads what it adds.
        let entitlements = bus.directory.file("app.entitlements")
        try PropertyListSerialization.data(
            fromPropertyList: ["keychain-access-groups": ["login"]], format: .xml, options: 0
        ).write(to: entitlements)
        let app = BuiltExecutable.named("secitem-probe").path
        let environment = ["KEYCHAIN_ENTITLEMENTS": entitlements.path]
        let read = try bus.run(
            app,
            [
                "copy",
                #"{"class": "genp", "svce": "imap.example.org", "acct": "zoë", "r_Data": true}"#,
            ], environment: environment)
        let expected = Data("rotated-by-security".utf8).base64EncodedString()
        #expect(read.output.contains(expected), "the Swift program read \(read.output) \(read.errors)")
        let stored = try bus.run(
            app,
            [
                "add",
                #"{"class": "genp", "svce": "api.example.org", "acct": "swift", "v_Data": {"$data": "\#(Data("from-swift".utf8).base64EncodedString())"}}"#,
            ], environment: environment)
        #expect(stored.output.contains("\"status\":0"), "\(stored.output) \(stored.errors)")
        #expect(
            try bus.secretTool(["lookup", "service", "api.example.org", "username", "swift"]).output == "from-swift")
    }
}
