import Foundation

/// The engine as the keybag of protected files (DESIGN §7).
///
/// Each class's wrapping key is derived from its class key with keyed BLAKE2b under a label of its own, so a file
/// key and an item key are never wrapped by the same key. Class B seals to the class public key with an ephemeral
/// X25519 key. The keybag's lock holds only while a class key is fetched; deriving and wrapping happen outside it.
extension Engine {
    /// Whether files of a class can be opened now.
    public func canOpenFiles(of fileClass: FileKeyClass) -> Bool {
        state.withLock { state in
            switch fileClass {
            case .classB: (try? state.keybag.classBKeyPair()) != nil
            case .classA, .classC, .classD:
                (try? state.keybag.key(for: Self.protectionClass(of: fileClass))) != nil
            }
        }
    }

    /// Wraps a file key for a class: class B needs only the public key, so it works while locked. The key is bound
    /// to no access group (embedded, any program that opens the keychain may open the file; through keychaind
    /// such a key is the user's unregistered programs').
    public func wrapFileKey(
        _ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8]
    ) throws(EngineError) -> Data {
        try wrap(key, for: fileClass) { uuid in Self.associatedData(uuid, fileClass, context) }
    }

    /// Wraps a file key bound to an access group (keychaind binds its caller's default group): the wrapped form
    /// carries the group's blind-index hash, bound into the associated data, and
    /// ``unwrapFileKey(_:for:context:caller:unboundGroup:)`` opens it only for a caller entitled to that group.
    package func wrapFileKey(
        _ key: SecretKey, for fileClass: FileKeyClass, context: [UInt8], boundTo group: String
    ) throws(EngineError) -> Data {
        let groupHash = try state.withLock { (state) throws(EngineError) -> Data in
            try state.keybag.blindIndex.group(group)
        }
        let inner = try wrap(key, for: fileClass) { uuid in
            Self.associatedData(uuid, fileClass, context, groupHash: groupHash)
        }
        return Data([FileKeyBinding.marker]) + groupHash + inner
    }

    /// Unwraps a file key, bound to an access group or not, or says why it cannot be unwrapped now. It checks no
    /// entitlement: embedded, access groups are rules, not a wall.
    public func unwrapFileKey(
        _ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8]
    ) throws(EngineError) -> SecretKey {
        let binding = try FileKeyBinding(wrapped, for: fileClass)
        return try unwrap(binding.inner, for: fileClass) { uuid in
            Self.associatedData(uuid, fileClass, context, groupHash: binding.groupHash)
        }
    }

    /// Unwraps a file key for `caller`, who must be entitled to the group it is bound to — or, for a key bound to
    /// none (written embedded, or through keychaind before keys were bound), to `unboundGroup` — else
    /// ``EngineError/Code/missingEntitlement``. keychaind unwraps every key so.
    package func unwrapFileKey(
        _ wrapped: Data, for fileClass: FileKeyClass, context: [UInt8], caller: Caller, unboundGroup: String
    ) throws(EngineError) -> SecretKey {
        let binding = try FileKeyBinding(wrapped, for: fileClass)
        let isEntitled = try state.withLock { (state) throws(EngineError) -> Bool in
            guard let groupHash = binding.groupHash else { return caller.canAccess(unboundGroup) }
            return try ChangeVisibility(caller: caller, index: state.keybag.blindIndex).includes(groupHash: groupHash)
        }
        guard isEntitled else {
            throw EngineError(
                .missingEntitlement,
                "the protected file's key is bound to "
                    + (binding.groupHash == nil
                        ? "no access group, which keychaind gives to the user's unregistered programs only"
                        : "an access group")
                    + " that \(caller.applicationIdentifier) is not entitled to (it has: "
                    + "\(caller.accessGroups.joined(separator: ", ")))")
        }
        return try unwrap(binding.inner, for: fileClass) { uuid in
            Self.associatedData(uuid, fileClass, context, groupHash: binding.groupHash)
        }
    }

    /// Keyed BLAKE2b of the header under a key derived from `dk`, which is loaded in every lock state.
    public func fileHeaderTag(for header: [UInt8]) throws(EngineError) -> Data {
        try KeyedHash.hash(header, key: try headerKey(), outputByteCount: Self.headerTagByteCount)
    }

    /// Whether `tag` is the tag of `header`.
    public func isValidFileHeaderTag(_ tag: Data, for header: [UInt8]) throws(EngineError) -> Bool {
        KeyedHash.equal(tag, try fileHeaderTag(for: header))
    }

    // MARK: Private

    /// Wraps a key for a class under the associated data `binding` gives for the keybag's identifier.
    private func wrap(
        _ key: SecretKey, for fileClass: FileKeyClass, binding: ([UInt8]) -> [UInt8]
    ) throws(EngineError) -> Data {
        switch fileClass {
        case .classB:
            let (uuid, publicKey) = try state.withLock { (state) throws(EngineError) -> (Data, Data) in
                guard let publicKey = state.keybag.classBPublicKey else {
                    throw EngineError(.invalidKeychain, "the keybag has no class B public key")
                }
                return (state.keybag.uuid, publicKey)
            }
            return try PublicKeySeal.seal(key: key, to: publicKey, associatedData: binding(Array(uuid)))
        case .classA, .classC, .classD:
            let (uuid, wrappingKey) = try wrappingKey(for: fileClass)
            return try AEAD.seal(key: key, under: wrappingKey, associatedData: binding(Array(uuid)))
        }
    }

    /// Opens a wrapped key of a class under the associated data `binding` gives for the keybag's identifier.
    private func unwrap(
        _ wrapped: Data, for fileClass: FileKeyClass, binding: ([UInt8]) -> [UInt8]
    ) throws(EngineError) -> SecretKey {
        switch fileClass {
        case .classB:
            let (uuid, keyPair) = try state.withLock { (state) throws(EngineError) -> (Data, KeyAgreementKeyPair) in
                guard let keyPair = try? state.keybag.classBKeyPair() else { throw Self.unavailable(fileClass) }
                return (state.keybag.uuid, keyPair)
            }
            return try PublicKeySeal.open(wrapped, with: keyPair, associatedData: binding(Array(uuid)))
        case .classA, .classC, .classD:
            let (uuid, wrappingKey) = try wrappingKey(for: fileClass)
            return try AEAD.open(key: wrapped, under: wrappingKey, associatedData: binding(Array(uuid)))
        }
    }

    private static let headerTagByteCount = 32

    /// The keybag's identifier and the class's wrapping key, or the error that says why the class is unavailable.
    private func wrappingKey(for fileClass: FileKeyClass) throws(EngineError) -> (Data, SecretKey) {
        let (uuid, classKey) = try state.withLock { (state) throws(EngineError) -> (Data, SecretKey) in
            guard let key = try? state.keybag.key(for: Self.protectionClass(of: fileClass)) else {
                throw Self.unavailable(fileClass)
            }
            return (state.keybag.uuid, key)
        }
        let wrappingKey = try KeyedHash.deriveKey(
            from: classKey, context: "swift-keychain file key wrap v1 class \(fileClass.rawValue)")
        return (uuid, wrappingKey)
    }

    private func headerKey() throws(EngineError) -> SecretKey {
        let alwaysKey = try state.withLock { (state) throws(EngineError) -> SecretKey in
            try state.keybag.key(for: .always)
        }
        return try KeyedHash.deriveKey(from: alwaysKey, context: "swift-keychain file header tag v1")
    }

    /// The item protection class whose key a file class derives its wrapping key from (class B has its own pair).
    private static func protectionClass(of fileClass: FileKeyClass) -> ProtectionClass {
        switch fileClass {
        case .classA, .classB: .whenUnlocked
        case .classC: .afterFirstUnlock
        case .classD: .always
        }
    }

    /// Binds a wrapped file key to this keybag, its class and the file's header fields, and to an access group
    /// when it is bound to one (its blind-index hash).
    private static func associatedData(
        _ keybag: [UInt8], _ fileClass: FileKeyClass, _ context: [UInt8], groupHash: Data? = nil
    ) -> [UInt8] {
        guard let groupHash else {
            return Array("swift-keychain file key v1".utf8) + keybag + [fileClass.rawValue] + context
        }
        return Array("swift-keychain file key v2 group".utf8) + keybag + [fileClass.rawValue] + Array(groupHash)
            + context
    }

    private static func unavailable(_ fileClass: FileKeyClass) -> EngineError {
        switch fileClass {
        case .classA:
            EngineError(
                .interactionNotAllowed, "files of class A (Complete) are unavailable while the keychain is locked")
        case .classB:
            EngineError(
                .interactionNotAllowed,
                "files of class B (CompleteUnlessOpen) can be created but not opened while the keychain is locked")
        case .classC:
            EngineError(
                .interactionNotAllowed,
                "files of class C (CompleteUntilFirstUserAuthentication) are unavailable until the keychain is first "
                    + "unlocked")
        case .classD:
            EngineError(.invalidKeychain, "the keybag's dk key, which files of class D (None) need, is missing")
        }
    }
}
