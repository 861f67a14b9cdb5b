import Foundation
import KeychainCore

/// Where the store's URL — and so its credentials, a PostgreSQL password above all — is kept (issue 27): sealed by
/// the keychain's keys, never in clear in the sync state. `sync.sqlite` holds the URL with its password hidden (what
/// `sync-status` shows) and the URL whole sealed (XChaCha20-Poly1305) under a random key wrapped by the keychain's
/// class C file key (``SyncDevice/wrap(_:_:purpose:backend:)``): it opens from the first unlock on, as the signing
/// key does, embedded or inside keychaind, and a copy of `sync.sqlite` without the keychain's keybag and device key
/// gives nothing.
extension SyncDevice {
    /// The store URL the keychain in `directory` syncs through, credentials included (to open the store before
    /// ``open(directory:backend:store:options:)``). A sync state written before credentials were sealed (its URL in
    /// clear) has it sealed now, and the clear one wiped from the file.
    public static func storeURL(in directory: URL, backend: any KeychainBackend) throws(SyncError) -> String {
        let state = try SyncDatabase.open(in: directory)
        if let sealed = try state.value(Meta.storeURLSealed), let wrapped = try state.value(Meta.storeURLKey) {
            let key = try unwrap(wrapped, .classC, purpose: storeURLPurpose, backend: backend)
            let opened: Data
            do throws(EngineError) {
                opened = try AEAD.open(sealed, key: key, associatedData: Array(storeURLPurpose.utf8))
            } catch {
                throw SyncError(error, "the sync state's store URL does not open with this keychain's keys")
            }
            return String(decoding: opened, as: UTF8.self)
        }
        guard let url = try state.text(Meta.storeURL) else {
            throw SyncError(.damaged, "the sync state in \(directory.path) names no store")
        }
        if PostgresStore.hidingPassword(url) != url { try saveStoreURL(url, in: state, backend: backend) }
        return url
    }

    /// The store URL of the keychain in `directory` with its password hidden, as `sync-status` shows it: what a
    /// host, a port or a socket directory is read from without the keychain's keys.
    public static func shownStoreURL(in directory: URL) throws(SyncError) -> String {
        guard let url = try SyncDatabase.open(in: directory).text(Meta.storeURL) else {
            throw SyncError(.damaged, "the sync state in \(directory.path) names no store")
        }
        return PostgresStore.hidingPassword(url)
    }

    /// Keeps `url` sealed, and only its shown form in clear; the clear bytes of an earlier form are overwritten in
    /// the file (secure delete) and the write-ahead log emptied.
    static func saveStoreURL(_ url: String, in state: SyncDatabase, backend: any KeychainBackend) throws(SyncError) {
        let key = try keychain("cannot make the store URL's key") { () throws(EngineError) -> SecretKey in
            try SecretKey.random()
        }
        let wrapped = try wrap(key, .classC, purpose: storeURLPurpose, backend: backend)
        let sealed = try keychain("cannot seal the store URL") { () throws(EngineError) -> Data in
            try AEAD.seal(Data(url.utf8), key: key, associatedData: Array(storeURLPurpose.utf8))
        }
        try state.wipingFreedBytes { () throws(SyncError) in
            try state.transaction { () throws(SyncError) in
                try state.setValue(wrapped, for: Meta.storeURLKey)
                try state.setValue(sealed, for: Meta.storeURLSealed)
                try state.setText(PostgresStore.hidingPassword(url), for: Meta.storeURL)
            }
        }
    }

    private static let storeURLPurpose = "store URL"
}
