import Foundation
import KeychainTPM
import Synchronization

/// A keychain's monotonic counter in the TPM that seals its device key (DESIGN §15): what a copy of the keychain's
/// files put back cannot roll back, so the high-water mark (``HighWaterMark``) and the sealed failed-passcode counter
/// (``AttemptsSeal``) record its value, and an older copy of either shows an older value.
///
/// Each keychain has two counters of its own, at NV indices derived from its device key (so nothing on disk names
/// them, and removing a file cannot unbind them): one for the high-water mark, one for the passcode attempts. A TPM
/// counter never goes down, not even when it is undefined and defined again.
///
/// The engine finds the binding through ``registered(for:purpose:)``: ``DeviceKeyTPM`` registers a keychain's
/// counters when it unseals (or seals) its device key, under a fingerprint of the keys the high-water mark and the
/// attempts seal are made with. A keychain whose device key is a file registers nothing and keeps its behaviour.
final class TPMCounterBinding: Sendable {
    /// What a counter protects.
    enum Purpose: String, Sendable {
        case highWaterMark = "hwm"
        case attempts = "attempts"
    }

    /// The TPM.
    let context: TPMContext
    /// The counter.
    let counter: TPMNVCounter
    /// Whether this process defined the counter: the keychain had none on this TPM before, so its files hold no value
    /// of it yet (a keychain sealed before counters were bound, or a new one).
    let isNew: Bool

    private init(context: TPMContext, counter: TPMNVCounter, isNew: Bool) {
        self.context = context
        self.counter = counter
        self.isNew = isNew
    }

    /// The counter's value now (one NV read).
    func value() throws(EngineError) -> UInt64 {
        do {
            return try context.read(counter)
        } catch {
            throw Self.failure(error, "reading the keychain's counter in the TPM at \(context.tcti)")
        }
    }

    /// Adds one to the counter (one NV write: slow, and wearing the TPM's memory; callers keep it rare) and returns
    /// the new value.
    func increment() throws(EngineError) -> UInt64 {
        do {
            return try context.increment(counter)
        } catch {
            throw Self.failure(error, "incrementing the keychain's counter in the TPM at \(context.tcti)")
        }
    }

    // MARK: Registry

    private static let registry = Mutex<[Data: TPMCounterBinding]>([:])

    /// Binds the keychain whose device key is `deviceKey`, sealed by `context`, to its counters (defining those that
    /// do not exist yet), and registers them for the high-water mark and the attempts seal.
    static func register(deviceKey: SecretKey, context: TPMContext) throws(EngineError) {
        let integrityKey = try ChangeLog.integrityKey(deviceKey: deviceKey)
        let indices = try counterIndices(for: deviceKey)
        let highWaterMark = try bind(context, TPMNVCounter(index: indices.highWaterMark))
        let attempts = try bind(context, TPMNVCounter(index: indices.attempts))
        let markKey = try fingerprint(of: integrityKey, .highWaterMark)
        let attemptsKey = try fingerprint(of: deviceKey, .attempts)
        registry.withLock {
            $0[markKey] = highWaterMark
            $0[attemptsKey] = attempts
        }
    }

    /// Deletes the TPM counters of the keychain in `directory` (before its files are removed): each takes NV memory,
    /// of which a TPM has little. Best effort: a keychain whose device key is a file, or whose TPM is not reachable
    /// now, keeps them (they then stay defined, unused).
    static func releaseCounters(ofKeychainIn directory: KeychainDirectory) {
        guard (try? DeviceKeyStorage.current(in: directory.url)) == .tpm,
            let deviceKey = try? DeviceKey.existing(in: directory),
            let binding = registered(for: deviceKey, purpose: .attempts),
            let indices = try? counterIndices(for: deviceKey)
        else { return }
        for index in [indices.highWaterMark, indices.attempts] {
            try? binding.context.undefine(TPMNVCounter(index: index))
        }
    }

    /// The counter registered for the keys made from `key` (the integrity key for the high-water mark, the device
    /// key for the attempts), or `nil` for a keychain whose device key is a file.
    static func registered(for key: SecretKey, purpose: Purpose) -> TPMCounterBinding? {
        guard let fingerprint = try? fingerprint(of: key, purpose) else { return nil }
        return registry.withLock { $0[fingerprint] }
    }

    /// The NV indices of a keychain's two counters: an even index and the next, in the owner's range, chosen by a
    /// keyed hash of the device key (a collision between two keychains of one TPM is a 1 in 2 million chance per
    /// pair; they would then share counters, which makes each see the other's increments as a rollback).
    static func counterIndices(for deviceKey: SecretKey) throws(EngineError) -> (
        highWaterMark: UInt32, attempts: UInt32
    ) {
        let hash = try KeyedHash.hash(Array("swift-keychain tpm counter index v1".utf8), key: deviceKey)
        let number = hash.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let pairs = UInt32(TPMNVCounter.ownerRange.count / 2) - 1
        let first = TPMNVCounter.ownerRange.lowerBound + 2 * (number % pairs)
        return (first, first + 1)
    }

    private static func bind(_ context: TPMContext, _ counter: TPMNVCounter) throws(EngineError) -> TPMCounterBinding {
        if (try? context.read(counter)) != nil {
            return TPMCounterBinding(context: context, counter: counter, isNew: false)
        }
        do {
            try context.define(counter)
        } catch {
            // Another process may have defined it between the read and this call; an index of another kind in its
            // place (whoever holds the owner hierarchy put it there) is refused, saying so.
            do {
                _ = try context.read(counter)
            } catch let unreadable where unreadable.code == .invalidBlob {
                throw failure(unreadable, "reading the keychain's counter in the TPM at \(context.tcti)")
            } catch {}
            guard (try? context.read(counter)) != nil else {
                throw failure(
                    error,
                    "defining the keychain's counter in the TPM at \(context.tcti) (its NV memory may be full, or its "
                        + "owner hierarchy has an authorization value)")
            }
            return TPMCounterBinding(context: context, counter: counter, isNew: false)
        }
        return TPMCounterBinding(context: context, counter: counter, isNew: true)
    }

    private static func fingerprint(of key: SecretKey, _ purpose: Purpose) throws(EngineError) -> Data {
        try KeyedHash.hash(Array("swift-keychain tpm counter binding \(purpose.rawValue)".utf8), key: key)
    }

    private static func failure(_ error: TPMError, _ operation: String) -> EngineError {
        EngineError(.interactionNotAllowed, "\(operation): \(error.message)")
    }
}
