import Foundation

/// Opens the ``SyncStore`` a URL names: the forms `security sync-init --store URL` and `sync-join` take.
///
/// - `file:///absolute/path` (or `file://localhost/absolute/path`; percent-escapes decoded): a ``FolderStore`` in
///   that folder, created (0700) when its parent exists. The folder is meant to be kept in step between machines
///   by another tool: Syncthing, a network file system, a cloud drive's folder.
/// - `postgresql://…` or `postgres://…`, in any form libpq accepts (user, password, host, port, database, and
///   parameters such as `sslmode=require` or `host=/path/to/socket/directory`): a ``PostgresStore``, connected.
public enum SyncStores {
    /// The store `url` names.
    /// - Throws: `.invalidURL`, naming the URL (its password hidden), when it is malformed or its scheme is none of
    ///   the above; what the store's initializer throws (`.unavailable` for a server that cannot be reached).
    public static func open(url: String) throws(SyncStoreError) -> any SyncStore {
        let shown = PostgresStore.hidingPassword(url)
        guard let schemeEnd = url.range(of: "://") else {
            throw SyncStoreError(
                .invalidURL, "the store URL \"\(shown)\" has no scheme: use file:///path or postgresql://…")
        }
        switch url[..<schemeEnd.lowerBound].lowercased() {
        case "file":
            return try FolderStore(path: try folderPath(url, shown: shown))
        case "postgresql", "postgres":
            return try PostgresStore(url: url)
        case let scheme:
            throw SyncStoreError(
                .invalidURL,
                "the store URL \"\(shown)\" has the scheme \"\(scheme)\", which no store handles: use file:///path "
                    + "or postgresql://…")
        }
    }

    /// The absolute, decoded path of a `file://` URL.
    static func folderPath(_ url: String, shown: String) throws(SyncStoreError) -> String {
        guard let components = URLComponents(string: url) else {
            throw SyncStoreError(.invalidURL, "the store URL \"\(shown)\" is malformed")
        }
        guard components.host == nil || components.host == "" || components.host == "localhost" else {
            throw SyncStoreError(
                .invalidURL,
                "the store URL \"\(shown)\" names the host \"\(components.host ?? "")\": a file:// store is a local "
                    + "folder (file:///path)")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil, components.port == nil
        else {
            throw SyncStoreError(
                .invalidURL, "the store URL \"\(shown)\" has parts a folder has no use for (user, port, ? or #)")
        }
        let path = components.path
        guard path.hasPrefix("/"), path.count > 1 else {
            throw SyncStoreError(.invalidURL, "the store URL \"\(shown)\" names no absolute folder (file:///path)")
        }
        guard !path.utf8.contains(0), !path.split(separator: "/").contains("..") else {
            throw SyncStoreError(.invalidURL, "the store URL \"\(shown)\" has a NUL or .. in its path")
        }
        return path
    }
}
