/// The one error the engine throws: a status that maps 1:1 to one of Apple's `OSStatus` codes, and a message
/// that names the key or value at fault.
///
/// Every layer above the engine (`Security`, `Keychain`, the CLI) maps this error and nothing else.
public struct EngineError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The status, with Apple's `OSStatus` value as its raw value.
    public enum Code: Int32, Sendable, Codable, CaseIterable {
        /// `errSecUnimplemented`: the operation or option is not implemented.
        case unimplemented = -4
        /// `errSecDiskFull`: the disk is full.
        case diskFull = -34
        /// `errSecIO`: an I/O error from the file system or the database.
        case ioError = -36
        /// `errSecWrPerm`: the keychain cannot be written (its database or file system is read-only).
        case writePermission = -61
        /// `errSecParam`: a parameter is missing, malformed or of the wrong type.
        case param = -50
        /// `errSecAllocate`: memory could not be allocated (or locked).
        case allocate = -108
        /// `errSecUserCanceled`: the user canceled the operation.
        case userCanceled = -128
        /// `errSecInternalComponent`: an internal component failed.
        case internalComponent = -2070
        /// `errSecNotAvailable`: no keychain is available.
        case notAvailable = -25291
        /// `errSecAuthFailed`: the passcode was not correct, or a passcode is required and none is set.
        case authFailed = -25293
        /// `errSecNoSuchKeychain`: the keychain does not exist.
        case noSuchKeychain = -25294
        /// `errSecInvalidKeychain`: the keychain's files are not a valid keychain.
        case invalidKeychain = -25295
        /// `errSecDuplicateKeychain`: a keychain exists there already.
        case duplicateKeychain = -25296
        /// `errSecDuplicateItem`: an item with the same primary key already exists.
        case duplicateItem = -25299
        /// `errSecItemNotFound`: no item matched.
        case itemNotFound = -25300
        /// `errSecDataTooLarge`: the data is too large.
        case dataTooLarge = -25302
        /// `errSecNoSuchAttr`: the attribute does not exist for the item's class.
        case noSuchAttribute = -25303
        /// `errSecNoSuchClass`: the item class does not exist.
        case noSuchClass = -25306
        /// `errSecInteractionNotAllowed`: the item's protection class is not available in the current lock state,
        /// or an item needs the user's authentication and the request may not ask for it.
        case interactionNotAllowed = -25308
        /// `errSecAuthNeeded` (Apple's private status): an item needs factors the request lacks
        /// (``EngineError/neededFactors``); the caller asks the user and sends the request again.
        case authNeeded = -25330
        /// `errSecDecode`: a stored item failed authentication (it was altered or moved) and cannot be decoded.
        case decode = -26275
        /// `errSecMissingEntitlement`: the caller is not entitled to the access group.
        case missingEntitlement = -34018
        /// `errSecVerifyFailed`: a signature does not verify.
        case verifyFailed = -67808
    }

    /// The status.
    public let code: Code
    /// What went wrong, naming the offending key or value.
    public let message: String

    /// When the change feed no longer holds every change after the sequence a reader asked for (compaction
    /// dropped some, or the sequence is not this keychain's): the sequence to follow from after reading the items
    /// again. `nil` for every other error.
    public let resyncSequence: Int64?

    /// For ``Code/authNeeded``: the factors the user must present (any one of them when there are several and the
    /// item's constraint takes any). `nil` for every other error.
    public let neededFactors: [AccessFactor]?

    /// Creates an error with a status and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        self.resyncSequence = nil
        self.neededFactors = nil
    }

    /// The engine's "authentication needed": an item's constraint needs `factors`, which the request lacks.
    public static func authNeeded(_ factors: [AccessFactor], _ message: String) -> EngineError {
        EngineError(code: .authNeeded, message: message, resyncSequence: nil, neededFactors: factors)
    }

    /// The change feed's "resync needed": the changes after `requested` are no longer all kept; read the items
    /// again, then follow from `oldestAvailable`.
    public static func resyncNeeded(after requested: Int64, oldestAvailable: Int64) -> EngineError {
        EngineError(
            code: .param,
            message:
                "resync needed: the change feed no longer holds every change after sequence \(requested); read the "
                + "items again, then follow the feed from sequence \(oldestAvailable), the oldest it holds whole",
            resyncSequence: oldestAvailable, neededFactors: nil)
    }

    /// An error with every field given (the daemon's wire form reads them back).
    package init(code: Code, message: String, resyncSequence: Int64?, neededFactors: [AccessFactor]?) {
        self.code = code
        self.message = message
        self.resyncSequence = resyncSequence
        self.neededFactors = neededFactors
    }

    /// The `OSStatus` value of the error.
    public var status: Int32 { code.rawValue }

    /// The message, prefixed by the status number.
    public var description: String { "\(message) (\(code.rawValue))" }
}

extension EngineError {
    static func param(_ message: String) -> EngineError { EngineError(.param, message) }
    static func decode(_ message: String) -> EngineError { EngineError(.decode, message) }
    static func allocate(_ message: String) -> EngineError { EngineError(.allocate, message) }
    static func internalError(_ message: String) -> EngineError { EngineError(.internalComponent, message) }
}
