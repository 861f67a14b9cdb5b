import Foundation

/// The keybag class that protects a file's key, and so decides when the file can be read (DESIGN §7).
///
/// The raw value is the byte recorded in a protected file's header.
public enum FileKeyClass: UInt8, Sendable, Codable, CaseIterable {
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
