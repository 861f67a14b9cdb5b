import Foundation

/// The keybag class that protects a file's key, and so decides when the file can be read (DESIGN §7).
///
/// The raw value is the byte recorded in a protected file's header.
public enum FileKeyClass: UInt8, Sendable, CaseIterable {
    /// Class A (Complete): the file key is wrapped by a key derived from `ak`, so the file can be created and read
    /// only while the keychain is unlocked.
    case classA = 1
    /// Class B (CompleteUnlessOpen): the file key is sealed to class B's X25519 public key, which is always
    /// available, so the file can be created while locked; it is opened with the private key, only while unlocked.
    case classB = 2
    /// Class C (CompleteUntilFirstUserAuthentication): the file key is wrapped by a key derived from `ck`, available
    /// from the first unlock on.
    case classC = 3
    /// Class D (None): the file key is wrapped by a key derived from `dk`, which the device key alone guards.
    case classD = 4
}

/// Where protected files get their keys wrapped and unwrapped: the keybag of one keychain.
///
/// `FileProtection` reaches the keybag only through this protocol, so it never sees a class key. ``Engine``
/// conforms (every operation under the engine's lock, with the keybag's current lock state); a client of the
/// keychain daemon will conform later.
public protocol FileKeyStore: Sendable {
    /// The identifier of the keybag whose keys protect files (a protected file records it in its header).
    func keybagID() throws(EngineError) -> UUID

    /// Whether files of a class can be opened (their key unwrapped) in the current lock state.
    func canOpenFiles(of fileClass: FileKeyClass) -> Bool

    /// Wraps a file key for a class, binding `context` (the header fields that must not change) and this keybag.
    /// Throws ``EngineError/Code/interactionNotAllowed`` when the class cannot create files in the current state.
    func wrapFileKey(_ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> Data

    /// Unwraps a file key wrapped by ``wrapFileKey(_:for:context:)`` with the same class and context. Throws
    /// ``EngineError/Code/interactionNotAllowed`` when the class is unavailable and ``EngineError/Code/decode``
    /// when the wrapped key, the class or the context differ from those it was wrapped with.
    func unwrapFileKey(_ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8]) throws(EngineError) -> SecretKey

    /// A tag (32 bytes) that authenticates a file header, computable in every lock state, so a header's class and
    /// fields can be trusted before the file key is available.
    func fileHeaderTag(for header: [UInt8]) throws(EngineError) -> Data

    /// Whether `tag` is the tag of `header` (compared in constant time).
    func isValidFileHeaderTag(_ tag: some ContiguousBytes, for header: [UInt8]) throws(EngineError) -> Bool
}
