import Foundation

/// Whole on-disk keychains: whether one exists, and removing one. The engine creates a keychain when it opens a
/// directory that holds none; these are for tools that create and delete keychains explicitly.
extension KeychainStorage {
    /// Whether `directory` holds a keychain (its database or its device key). Reads at most two file headers.
    public static func keychainExists(in directory: URL) -> Bool {
        KeychainDirectory(url: directory).holdsKeychain
    }

    /// Removes the keychain in `directory`: the device key first (without it nothing left can be decrypted), then
    /// the database and its WAL files, then the directory itself when nothing else is in it. Files that are not
    /// the keychain's are left alone. Throws ``EngineError/Code/noSuchKeychain`` when the directory holds no
    /// keychain. An engine that has the keychain open must be released first.
    public static func removeKeychain(in directory: URL) throws(EngineError) {
        try KeychainDirectory(url: directory).remove()
    }
}
