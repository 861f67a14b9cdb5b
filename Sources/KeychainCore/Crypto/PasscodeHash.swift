import CSodium
import Foundation

/// The cost of deriving a key from a passcode with Argon2id: kept beside the salt, so a keychain created with one
/// cost opens with that cost forever.
public struct PasscodeCost: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Argon2id passes over memory.
    public var passes: UInt64
    /// Argon2id memory in bytes.
    public var memoryBytes: Int

    /// Creates a cost; both values are clamped by `validated()` before use.
    public init(passes: UInt64, memoryBytes: Int) {
        self.passes = passes
        self.memoryBytes = memoryBytes
    }

    /// The default: 192 MiB and 3 passes, about 0.35 s on a 2-core server (the middle of the 0.2–0.6 s an unlock
    /// should take: slow for guessing, quick for a person).
    public static let standard = PasscodeCost(passes: 3, memoryBytes: 192 << 20)

    /// The cheapest cost Argon2id allows. For tests only: it protects nothing.
    public static let minimum = PasscodeCost(
        passes: UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN), memoryBytes: Int(crypto_pwhash_argon2id_MEMLIMIT_MIN))

    /// Throws when the cost is outside Argon2id's limits.
    func validated() throws(EngineError) -> PasscodeCost {
        guard passes >= UInt64(crypto_pwhash_argon2id_OPSLIMIT_MIN),
            passes <= UInt64(crypto_pwhash_argon2id_OPSLIMIT_MAX)
        else { throw .param("Argon2id passes \(passes) is out of range") }
        guard memoryBytes >= Int(crypto_pwhash_argon2id_MEMLIMIT_MIN), memoryBytes <= 1 << 32 else {
            throw .param("Argon2id memory \(memoryBytes) bytes is out of range")
        }
        return self
    }

    /// `"192 MiB × 3 passes"`.
    public var description: String { "\(memoryBytes >> 20) MiB × \(passes) passes" }
}

/// Argon2id (`crypto_pwhash`) passcode hashing.
package enum PasscodeHash {
    /// The salt size in bytes.
    package static let saltByteCount = Int(crypto_pwhash_SALTBYTES)

    /// Derives a 32-byte key from `passcode` into locked memory, reading the passcode's bytes where they are
    /// (guarded memory): no copy of them is made here, and none of the key is left behind (Argon2id leaves its
    /// output on the stack and in the vector registers, wiped before this returns, for every caller).
    package static func deriveKey(passcode: Passcode, salt: [UInt8], cost: PasscodeCost) throws(EngineError)
        -> SecretKey
    {
        defer { Sodium.wipeStack() }
        try Sodium.ensureInitialized()
        let cost = try cost.validated()
        guard salt.count == saltByteCount else { throw .decode("the keybag's passcode salt is damaged") }
        let key = try SecretKey.zeroed()
        let status = key.storage.withUnsafeMutableBytes { out in
            passcode.withUnsafeBytes { secret in
                guard let bytes = secret.baseAddress?.assumingMemoryBound(to: CChar.self) else { return Int32(-1) }
                return crypto_pwhash(
                    out.sodiumPointer, UInt64(out.count), bytes, UInt64(secret.count), salt, cost.passes,
                    cost.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
            }
        }
        guard status == 0 else {
            throw .allocate("Argon2id could not allocate \(cost.memoryBytes >> 20) MiB to derive the passcode key")
        }
        return key
    }
}
