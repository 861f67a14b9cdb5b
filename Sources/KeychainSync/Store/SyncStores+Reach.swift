import CLibPQ
import Foundation

/// What a process must be able to reach to use a sync store: a folder, or PostgreSQL servers through Unix sockets or
/// the network. keychaind's systemd unit shuts everything else out; `keychaind --sync-drop-in` opens exactly this.
package enum SyncStoreReach: Sendable, Equatable {
    /// A folder store's folder (absolute, decoded).
    case folder(String)
    /// A PostgreSQL store: the directories of the Unix sockets and the network hosts (names or addresses) libpq
    /// may connect to, as the URL's hosts and `host=`/`hostaddr=` parameters name them.
    case postgres(socketDirectories: [String], networkHosts: [String])
}

extension SyncStores {
    /// Where the store `url` names lives, parsed as ``open(url:)`` (and libpq) would, without connecting.
    /// - Throws: `.invalidURL` naming the URL (its password hidden), as ``open(url:)`` does.
    package static func reach(of url: String) throws(SyncStoreError) -> SyncStoreReach {
        let shown = PostgresStore.hidingPassword(url)
        let scheme = url.range(of: "://").map { url[..<$0.lowerBound].lowercased() }
        switch scheme {
        case "file": return .folder(try folderPath(url, shown: shown))
        case "postgresql", "postgres": return try postgresReach(url, shown: shown)
        default:
            throw SyncStoreError(
                .invalidURL, "the store URL \"\(shown)\" is neither a file:///path nor a postgresql://… URL")
        }
    }

    /// The hosts libpq takes from `url`: each `host` entry that is a path is a socket directory, any other a network
    /// host (its `hostaddr`, when given, is what libpq connects to); none at all is libpq's default socket directory.
    private static func postgresReach(_ url: String, shown: String) throws(SyncStoreError) -> SyncStoreReach {
        try PostgresStore.loadLibPQ()
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            PQfreemem(message)
            throw SyncStoreError(.invalidURL, "the PostgreSQL URL \(shown) is malformed")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        func list(_ keyword: String) -> [String] {
            (values[keyword] ?? "").split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        let hosts = list("host")
        let addresses = list("hostaddr")
        var sockets: [String] = []
        var network: [String] = []
        for index in 0..<max(hosts.count, addresses.count) {
            let host = index < hosts.count ? hosts[index] : ""
            let address = index < addresses.count ? addresses[index] : ""
            if !address.isEmpty {
                network.append(address)
            } else if host.hasPrefix("/") {
                sockets.append(host)
            } else if !host.isEmpty {
                network.append(host)
            } else {
                sockets.append(defaultSocketDirectory)
            }
        }
        return .postgres(socketDirectories: sockets, networkHosts: network)
    }

    /// Where Debian's libpq looks for the server's socket when a URL names no host.
    private static let defaultSocketDirectory = "/var/run/postgresql"
}
