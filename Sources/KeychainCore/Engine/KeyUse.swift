import Foundation
import Synchronization

/// One use of a stored private key that the keychain carries out itself, so that the key's bytes stay where the
/// keychain is: in keychaind for its clients (a non-extractable key never reaches the app), in the engine's process
/// otherwise. The algorithm is named by Apple's identifier (`algid:sign:ECDSA:message-X962:SHA256` …), which the key
/// layer reads (`KeyOperating`).
public struct KeyUse: Sendable, Equatable {
    /// What is done with the key.
    public enum Operation: UInt8, Sendable {
        /// A signature of ``KeyUse/input`` (a message or a digest, as the algorithm says).
        case sign = 1
        /// ``KeyUse/input`` decrypted.
        case decrypt = 2
        /// A key exchange with the public key in ``KeyUse/input`` (its external representation).
        case keyExchange = 3
        /// The key's public half, in its external representation: what a handle to the key needs to verify,
        /// encrypt and compare, without the private half.
        case publicKey = 4
    }

    /// What is done.
    public var operation: Operation
    /// Apple's identifier of the algorithm (empty for ``Operation/publicKey``).
    public var algorithm: String
    /// The data the operation takes.
    public var input: Data
    /// For a key exchange through the X9.63 KDF: the size in bytes of the derived key.
    public var requestedSize: Int
    /// For a key exchange through the X9.63 KDF: the shared information it binds.
    public var sharedInfo: Data

    /// Describes one use.
    public init(
        _ operation: Operation, algorithm: String = "", input: Data = Data(), requestedSize: Int = 0,
        sharedInfo: Data = Data()
    ) {
        self.operation = operation
        self.algorithm = algorithm
        self.input = input
        self.requestedSize = requestedSize
        self.sharedInfo = sharedInfo
    }
}

/// A key pair the keychain makes itself, so that its private half is born where it is stored (in keychaind, for its
/// clients) and never travels. Both halves are stored, all or nothing, with the attributes given (a tag, a label,
/// the access group, the accessibility and access control) completed from the key (class, type, sizes, label).
public struct KeyGeneration: Sendable, Equatable {
    /// Apple's key type: 42 for RSA, 73 for an elliptic curve (`kSecAttrKeyType`).
    public var keyType: Int64
    /// The key's size in bits (RSA 1024–4096; EC 256, 384, 521).
    public var sizeInBits: Int
    /// The private half's item; its data is ignored.
    public var privateKey: NewItem
    /// The public half's item, or `nil` to keep only the private half.
    public var publicKey: NewItem?

    /// Describes a key pair to make.
    public init(keyType: Int64, sizeInBits: Int, privateKey: NewItem, publicKey: NewItem?) {
        self.keyType = keyType
        self.sizeInBits = sizeInBits
        self.privateKey = privateKey
        self.publicKey = publicKey
    }
}

/// The key layer's side of ``KeyUse``: the engine finds the key item and opens it, this runs the operation on its
/// bytes. The engine cannot link the key layer (which builds on it), so the process installs it once
/// (``KeyOperations/install(_:)``) before its keychain is asked to use a key.
package protocol KeyOperating: Sendable {
    /// Runs `use` with the key whose external representation is `key`, described by `attributes` (its class, type
    /// and size).
    func perform(_ use: KeyUse, key: Data, attributes: ItemAttributes) throws(EngineError) -> Data

    /// Makes the key pair `generation` describes: its items (private first) with their data and attributes.
    func generate(_ generation: KeyGeneration) throws(EngineError) -> [NewItem]

    /// Drops every key it keeps read between uses: the keychain locked, or a key item was changed or deleted.
    func forgetPreparedKeys()
}

/// The process's key layer, installed once.
package enum KeyOperations {
    private static let installed = Mutex<(any KeyOperating)?>(nil)

    /// Installs the key layer (the first one installed stays: every caller installs the same one).
    package static func install(_ operations: any KeyOperating) {
        installed.withLock { if $0 == nil { $0 = operations } }
    }

    /// The installed key layer, or errSecUnimplemented naming what is missing.
    package static func current() throws(EngineError) -> any KeyOperating {
        guard let operations = installed.withLock({ $0 }) else {
            throw EngineError(
                .unimplemented, "this process has no key layer installed, so the keychain cannot use a stored key")
        }
        return operations
    }

    /// Tells the installed key layer, if any, to drop the keys it keeps read between uses: called when a keybag
    /// locks and when a stored key may have changed or gone, so a parsed private key outlives neither.
    package static func forgetPreparedKeys() {
        forgets.add(1, ordering: .sequentiallyConsistent)
        installed.withLock { $0 }?.forgetPreparedKeys()
    }

    /// How many times the prepared keys were forgotten.
    private static let forgets = Atomic<UInt64>(0)

    /// Runs a key use (`body`: its item's search, then the key layer's work), and forgets the prepared keys again if
    /// they were forgotten while it ran: a lock between the search and the key layer keeping the key it read must
    /// not leave that key kept.
    package static func honoringForgets<Result>(
        _ body: () throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        let before = forgets.load(ordering: .sequentiallyConsistent)
        defer {
            if forgets.load(ordering: .sequentiallyConsistent) != before { forgetPreparedKeys() }
        }
        return try body()
    }
}
