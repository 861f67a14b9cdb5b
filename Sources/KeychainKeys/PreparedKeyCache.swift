import Foundation
import KeychainCore
import Synchronization

/// Stored keys kept read into libcrypto between uses, so a signature with a stored key does not read the key again.
///
/// Why: reading an EC key builds its curve's group (field and order constants, two modular inverses) every time, a
/// third of a stored P-256 key's signature; an RSA key's Montgomery constants are made again on each first use.
///
/// What it may hold, and for how long: a key is found here only after the keychain found and opened its item for
/// this use (its class key loaded, its access control satisfied), and it is found by a keyed hash of the opened
/// bytes, so a changed item never meets its old key. It holds at most ``capacity`` keys, drops one unused for
/// ``idleLimit``, and drops them all when a keybag locks or a key item is changed or deleted
/// (``KeyOperations/forgetPreparedKeys()``): a parsed private key never outlives the class key that opened it.
final class PreparedKeyCache: Sendable {
    /// The process's cache (keychaind's, or an app's with an embedded keychain).
    static let shared = PreparedKeyCache()

    /// The most keys kept at once.
    static let capacity = 16
    /// A key unused this long is dropped at the next use of any key.
    static let idleLimit: Duration = .seconds(60)

    /// A key's name: the keyed hash of its bytes, with the class and type they are read as.
    private struct Name: Hashable {
        let digest: Data
        let keyClass: Int64
        let keyType: Int64
    }

    private struct Entry {
        let key: AsymmetricKey
        var lastUse: ContinuousClock.Instant
    }

    private let entries = Mutex<[Name: Entry]>([:])
    /// A random key for this process's hashes (`nil` if none could be made: then nothing is kept).
    private let digestKey: SecretKey?

    init() {
        digestKey = try? SecretKey.random()
    }

    /// How many keys it holds now (for the tests).
    var count: Int { entries.withLock { $0.count } }

    /// Whether it holds the key `data` holds, read as `keyClass` and `keyType` say (for the tests).
    func holds(_ data: Data, keyClass: Int64, keyType: Int64) throws(EngineError) -> Bool {
        guard let name = try name(of: data, keyClass: keyClass, keyType: keyType) else { return false }
        return entries.withLock { $0[name] != nil }
    }

    private func name(of data: Data, keyClass: Int64, keyType: Int64) throws(EngineError) -> Name? {
        guard let digestKey else { return nil }
        return Name(digest: try KeyedHash.hash(data, key: digestKey), keyClass: keyClass, keyType: keyType)
    }

    /// The key `data` holds, read as `keyClass` and `keyType` say: kept from an earlier use, or read by `read` and
    /// kept.
    func key(
        in data: Data, keyClass: Int64, keyType: Int64, read: () throws(EngineError) -> AsymmetricKey
    ) throws(EngineError) -> AsymmetricKey {
        guard let name = try name(of: data, keyClass: keyClass, keyType: keyType) else { return try read() }
        let now = ContinuousClock.now
        let kept = entries.withLock { entries -> AsymmetricKey? in
            if entries.values.contains(where: { now - $0.lastUse >= Self.idleLimit }) {
                entries = entries.filter { now - $0.value.lastUse < Self.idleLimit }
            }
            entries[name]?.lastUse = now
            return entries[name]?.key
        }
        if let kept { return kept }
        let key = try read()
        entries.withLock { entries in
            if entries.count >= Self.capacity,
                let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                entries[oldest] = nil
            }
            entries[name] = Entry(key: key, lastUse: now)
        }
        return key
    }

    /// Drops every key.
    func removeAll() {
        entries.withLock { entries in
            if !entries.isEmpty { entries.removeAll() }
        }
    }
}
