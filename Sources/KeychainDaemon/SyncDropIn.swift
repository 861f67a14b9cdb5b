import Foundation
import KeychainCore
import KeychainSync

#if canImport(Glibc)
    import Glibc
#endif

/// The systemd drop-in (`/etc/systemd/system/keychaind.service.d/sync.conf`) that lets keychaind's background sync
/// reach the stores its users' keychains sync through, and nothing more: `keychaind --sync-drop-in` prints it.
///
/// The shipped unit hides the home directories (`ProtectHome=yes`), makes the file system read-only
/// (`ProtectSystem=strict`) and gives the daemon no network (`PrivateNetwork=yes`, `AF_UNIX` only,
/// `IPAddressDeny=any`). A folder store in a home directory is bound in alone (`ProtectHome=tmpfs`, `BindPaths=`),
/// one elsewhere made writable (`ReadWritePaths=`); a PostgreSQL server reached through its Unix socket needs
/// nothing; one reached over the network gets the network back, for IPv4 and IPv6 sockets, to its addresses (as
/// resolved when the drop-in is written) and to the name servers that resolve it.
package enum SyncDropIn {
    /// A store and whose it is, as the drop-in's comment names it.
    package struct Store {
        package var owner: String
        package var url: String

        package init(owner: String, url: String) {
            self.owner = owner
            self.url = url
        }
    }

    /// The stores of every user keychain in `stateDirectory` set up for sync.
    package static func configuredStores(in stateDirectory: URL) -> [Store] {
        let users = stateDirectory.appendingPathComponent("users", isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: users.path)) ?? []
        return names.compactMap(UInt32.init).sorted().compactMap { uid in
            let directory = users.appendingPathComponent(String(uid), isDirectory: true)
            guard SyncDevice.isConfigured(in: directory), let url = try? SyncDevice.shownStoreURL(in: directory) else {
                return nil
            }
            return Store(owner: "uid \(uid)", url: url)
        }
    }

    /// The drop-in for `stores`.
    package static func text(for stores: [Store]) throws(EngineError) -> String {
        var homeFolders: [String] = []
        var otherFolders: [String] = []
        var notes: [String] = []
        var addresses: [String] = []
        var needsNameServers = false
        for store in stores {
            let reach: SyncStoreReach
            do throws(SyncStoreError) {
                reach = try SyncStores.reach(of: store.url)
            } catch {
                throw EngineError(.param, "the sync store of \(store.owner): \(error)")
            }
            switch reach {
            case .folder(let path):
                if isPrivate(path) {
                    notes.append("\(path) is in keychaind's private /tmp: move the store elsewhere")
                } else if ["/home", "/root", "/run/user"].contains(where: { path == $0 || path.hasPrefix($0 + "/") }) {
                    homeFolders.append(path)
                } else {
                    otherFolders.append(path)
                }
                if !FileManager.default.fileExists(atPath: path) {
                    notes.append("\(path) does not exist: create it, owned by keychaind (mode 0700), first")
                }
            case .postgres(let sockets, let hosts):
                for directory in sockets where isPrivate(directory) {
                    notes.append("the PostgreSQL socket in \(directory) is in keychaind's private /tmp")
                }
                for host in hosts {
                    if isAddress(host) || host == "localhost" {
                        addresses.append(host)
                        continue
                    }
                    let resolved = resolve(host)
                    if resolved.isEmpty { notes.append("\(host) does not resolve now: allow its addresses by hand") }
                    addresses += resolved
                    needsNameServers = true
                }
            }
        }
        if needsNameServers { addresses += nameServers() }
        var lines = [
            "# keychaind.service.d/sync.conf: what keychaind's background sync needs to reach its users' sync stores,",
            "# written by `keychaind --sync-drop-in` for these (write it again, then `systemctl daemon-reload` and",
            "# `systemctl restart keychaind`, whenever they change):",
        ]
        lines += stores.map { "#   \($0.owner): \(PostgresStore.hidingPassword($0.url))" }
        lines += notes.map { "# NOTE: \($0)" }
        lines.append("[Service]")
        if !homeFolders.isEmpty {
            lines += [
                "# Folder stores in home directories, bound in alone: the rest of /home, /root and /run/user stays",
                "# hidden. Each folder must be the keychaind user's to write (a missing one is skipped, and its sync",
                "# fails in keychaind's log, rather than keeping the daemon from starting).",
                "ProtectHome=tmpfs",
            ]
            lines += homeFolders.map { "BindPaths=\(quoted("-" + $0))" }
        }
        if !otherFolders.isEmpty {
            lines.append("# Folder stores elsewhere, writable in the otherwise read-only file system.")
            lines += otherFolders.map { "ReadWritePaths=\(quoted("-" + $0))" }
        }
        if !addresses.isEmpty {
            lines += [
                "# PostgreSQL over the network: these addresses only (the servers', as resolved now, and the name",
                "# servers that resolve them); every other address stays denied.",
                "PrivateNetwork=no",
                "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
                "IPAddressAllow=\(Array(Set(addresses)).sorted().joined(separator: " "))",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether `path` is under /tmp or /var/tmp, which keychaind sees privately (`PrivateTmp=yes`).
    private static func isPrivate(_ path: String) -> Bool {
        ["/tmp", "/var/tmp"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// A path as a unit file's path lists take it: quoted, `%` (a specifier) doubled, `\` and `"` escaped.
    private static func quoted(_ path: String) -> String {
        let escaped = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%")
        return "\"\(escaped)\""
    }

    /// Whether `host` is an IPv4 or IPv6 address, not a name.
    private static func isAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// The addresses `host` resolves to now.
    private static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var first: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &first) == 0 else { return [] }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var entry = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0,
                NI_NUMERICHOST) == 0
            {
                found.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            entry = current.pointee.ai_next
        }
        return found
    }

    /// The name servers `/etc/resolv.conf` names (a local stub resolver's address included).
    private static func nameServers() -> [String] {
        let text = (try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(whereSeparator: \.isWhitespace)
            guard words.count >= 2, words[0] == "nameserver", isAddress(String(words[1])) else { return nil }
            return String(words[1])
        }
    }
}
