import CTSS2

/// A TPM operation that failed: what kind of failure (``Code``), a message naming the operation and the TPM's own
/// words, and the response code the TPM software stack returned, when there was one.
public struct TPMError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure a caller tells apart. A struct with static members, so that new kinds do not break a
    /// caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let description: String

        /// No TPM answers at the TCTI, or the libtss2 libraries are not installed.
        public static let unavailable = Code(description: "unavailable")
        /// The object's authorization value was wrong (TPM_RC_AUTH_FAIL or TPM_RC_BAD_AUTH); for an object the
        /// dictionary-attack protection guards, the TPM counted the failure.
        public static let authorizationFailed = Code(description: "authorizationFailed")
        /// The TPM is in dictionary-attack lockout (TPM_RC_LOCKOUT): it refuses every use of a guarded object
        /// until its recovery time has passed or its lockout is reset.
        public static let lockout = Code(description: "lockout")
        /// The TPM refused a wrapped blob as not its own (TPM_RC_INTEGRITY and kin): made by another TPM, under
        /// another primary key, or altered.
        public static let foreignBlob = Code(description: "foreignBlob")
        /// Bytes that are not a blob of this format, or a blob of another kind than the operation needs.
        public static let invalidBlob = Code(description: "invalidBlob")
        /// An argument the TPM cannot take (too long, not a point on the curve, a digest of the wrong size).
        public static let invalidArgument = Code(description: "invalidArgument")
        /// Any other failure the TPM or its software stack reported.
        public static let failed = Code(description: "failed")
    }

    /// What kind of failure.
    public let code: Code
    /// What failed and why, in words.
    public let message: String
    /// The TSS2 response code, when the TPM or its stack returned one.
    public let responseCode: UInt32?

    /// A failure of `code` with `message`.
    public init(_ code: Code, _ message: String, responseCode: UInt32? = nil) {
        self.code = code
        self.message = message
        self.responseCode = responseCode
    }

    /// The message.
    public var description: String { message }

    /// Returns when `rc` is success; otherwise throws the error it means for `operation`, with the stack's text.
    static func check(_ rc: TSS2_RC, _ operation: String) throws(TPMError) {
        guard rc != 0 else { return }
        throw TPMError(responseCode: rc, operation: operation)
    }

    /// The error a nonzero response code means for `operation`.
    init(responseCode rc: TSS2_RC, operation: String) {
        let text = ck_Tss2_RC_Decode(rc).map { String(cString: $0) } ?? "no text: libtss2-rc.so.0 is not installed"
        let hex = "0x" + String(rc, radix: 16)
        let code = Self.classify(rc)
        let message: String
        switch code {
        case .unavailable: message = "\(operation): no TPM answers (\(hex): \(text))"
        case .lockout:
            message =
                "\(operation): the TPM is in dictionary-attack lockout and refuses the key until it recovers "
                + "(\(hex): \(text))"
        case .authorizationFailed:
            message = "\(operation): the TPM refused the authorization value (\(hex): \(text))"
        case .foreignBlob:
            message =
                "\(operation): the TPM refused the blob as not its own: made by another TPM or altered "
                + "(\(hex): \(text))"
        default: message = "\(operation) failed: \(hex): \(text)"
        }
        self.init(code, message, responseCode: rc)
    }

    /// Sorts a response code: the TPM's own (layer 0, or passed on by a resource manager) by its base code, with
    /// the handle, session and parameter numbers of a format-one code removed; the TCTI's as "no TPM answers".
    private static func classify(_ rc: TSS2_RC) -> Code {
        let layer = rc & 0xFF_0000
        if layer == 0x0A_0000 { return .unavailable }  // TSS2_TCTI_RC_LAYER: the transport, not the TPM.
        guard layer == 0 || layer == 0x0C_0000 else { return .failed }  // 12: TSS2_RESMGR_TPM_RC_LAYER.
        let tpm = rc & 0xFFFF
        let base = tpm & 0x80 != 0 ? tpm & 0xBF : tpm
        switch base {
        case 0x08E, 0x0A2: return .authorizationFailed  // TPM_RC_AUTH_FAIL, TPM_RC_BAD_AUTH
        case 0x921: return .lockout  // TPM_RC_LOCKOUT
        // TPM_RC_INTEGRITY, TPM_RC_SIZE, TPM_RC_KEY, TPM_RC_BINDING: the private area does not open under this
        // TPM's parent key.
        case 0x09F, 0x095, 0x09C, 0x0A5: return .foreignBlob
        case 0x0A7, 0x084, 0x0A6: return .invalidArgument  // TPM_RC_ECC_POINT, TPM_RC_VALUE, TPM_RC_CURVE
        default: return .failed
        }
    }
}
