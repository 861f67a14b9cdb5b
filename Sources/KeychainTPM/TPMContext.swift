import CSystem
import CTSS2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A connection to a TPM 2.0 through the TSS2 ESAPI (libtss2, loaded on first use): the keychain's hardware root of
/// trust (DESIGN §15).
///
/// Every object it makes lives under one storage primary key, an ECC P-256 key the TPM derives from its owner
/// hierarchy's seed with a fixed template: the same TPM gives the same primary every time, so nothing is persisted
/// in the TPM, and an object wrapped by one TPM opens on no other. Calls are serialized (ESAPI contexts are not
/// thread-safe); the context is closed when released.
public final class TPMContext: Sendable {
    /// The environment variable naming the TCTI: `swtpm:host=127.0.0.1,port=2321`, `device:/dev/tpmrm0`, or `none`
    /// for no TPM even where a device exists.
    public static let environmentVariable = "KEYCHAIN_TPM"
    /// The kernel's TPM resource manager, used when ``environmentVariable`` is not set.
    public static let defaultDevice = "/dev/tpmrm0"

    /// The TCTI the context speaks through.
    public let tcti: String
    let session: Mutex<TPMSession>

    private init(tcti: String, session: sending TPMSession) {
        self.tcti = tcti
        self.session = Mutex(session)
    }

    /// The TCTI this process is configured to use: ``environmentVariable``'s value when set (`nil` for `none` or an
    /// empty value), else `device:/dev/tpmrm0` when that device exists, else `nil`.
    public static func configuredTCTI(environment: [String: String]) -> String? {
        if let named = environment[environmentVariable] {
            return named.isEmpty || named == "none" ? nil : named
        }
        return access(defaultDevice, F_OK) == 0 ? "device:\(defaultDevice)" : nil
    }

    /// Connects to the TPM this process is configured for (``configuredTCTI(environment:)``); `nil` when none is.
    /// A TPM that is named but does not answer, or libtss2 missing, is an error (``TPMError/Code/unavailable``),
    /// except for the default device alone: a machine with a TPM but without libtss2 runs as one without a TPM.
    public static func open(environment: [String: String]) throws(TPMError) -> TPMContext? {
        guard let tcti = configuredTCTI(environment: environment) else { return nil }
        if environment[environmentVariable] == nil, loadFailure() != nil { return nil }
        return try open(tcti: tcti)
    }

    /// Connects to the TPM at `tcti` and makes its storage primary key; throws ``TPMError/Code/unavailable`` when
    /// libtss2 is missing or no TPM answers there.
    public static func open(tcti: String) throws(TPMError) -> TPMContext {
        if let failure = loadFailure() {
            throw TPMError(.unavailable, "the TPM software stack is not installed: \(failure)")
        }
        let session = try TPMSession(tcti: tcti)
        return TPMContext(tcti: tcti, session: session)
    }

    /// Flushes the storage primary key from the TPM; the context is unusable afterwards. A context kept for the
    /// process's life calls this at exit: a TPM reached without a resource manager (a software TPM over TCP) keeps
    /// transient objects across connections, and has room for only a few.
    public func close() {
        session.withLock { $0.flushPrimary() }
    }

    /// Why libtss2 cannot be loaded, or `nil` when it is.
    public static func loadFailure() -> String? {
        var error = [CChar](repeating: 0, count: 512)
        guard ck_tss2_load(&error, error.count) == 0 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `body` with the context's session, one caller at a time.
    func withSession<Result: Sendable>(
        _ body: (borrowing TPMSession) throws(TPMError) -> Result
    ) throws(TPMError) -> Result {
        try session.withLock { (session) throws(TPMError) -> Result in try body(session) }
    }
}

/// One ESAPI context, its TCTI and the storage primary key's handle; used only under ``TPMContext``'s lock.
final class TPMSession {
    let esys: OpaquePointer
    private var tcti: OpaquePointer?
    /// The storage primary key, made at connection.
    private(set) var primary: ESYS_TR = ESYS_TR(ESYS_TR_NONE)

    init(tcti name: String) throws(TPMError) {
        var tcti: OpaquePointer?
        let loaded = ck_Tss2_TctiLdr_Initialize(name, &tcti)
        guard loaded == 0, let tcti else {
            throw TPMError(
                .unavailable,
                "no TPM answers at \"\(name)\" (set \(TPMContext.environmentVariable) to a TCTI such as "
                    + "device:/dev/tpmrm0): \(TPMError(responseCode: loaded, operation: "connecting").message)",
                responseCode: loaded)
        }
        var esys: OpaquePointer?
        let initialized = ck_Esys_Initialize(&esys, tcti, nil)
        guard initialized == 0, let esys else {
            var closing: OpaquePointer? = tcti
            ck_Tss2_TctiLdr_Finalize(&closing)
            throw TPMError(responseCode: initialized, operation: "starting the TPM's ESAPI at \"\(name)\"")
        }
        self.esys = esys
        self.tcti = tcti
        primary = try makePrimary()
    }

    /// Flushes the primary key (once).
    func flushPrimary() {
        if primary != ESYS_TR(ESYS_TR_NONE) { _ = ck_Esys_FlushContext(esys, primary) }
        primary = ESYS_TR(ESYS_TR_NONE)
    }

    deinit {
        flushPrimary()
        var context: OpaquePointer? = esys
        ck_Esys_Finalize(&context)
        ck_Tss2_TctiLdr_Finalize(&tcti)
    }

    /// Makes the storage primary key from the owner hierarchy's seed (the same key every time, see ``TPMContext``).
    private func makePrimary() throws(TPMError) -> ESYS_TR {
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = TPMTemplates.storagePrimary()
        var outsideInfo = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var handle = ESYS_TR(ESYS_TR_NONE)
        try TPMError.check(
            ck_Esys_CreatePrimary(
                esys, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                ESYS_TR(ESYS_TR_NONE), &sensitive, &template, &outsideInfo, &pcrs, &handle, nil, nil, nil, nil),
            "creating the TPM's storage primary key under the owner hierarchy (is an owner password set?)")
        return handle
    }

    /// Creates an object under the primary from `template` and `sensitive`, and returns it wrapped as a blob.
    func create(
        _ kind: TPMBlob.Kind, template: TPM2B_PUBLIC, sensitive: TPM2B_SENSITIVE_CREATE, operation: String
    ) throws(TPMError) -> TPMBlob {
        var template = template
        var sensitive = sensitive
        defer { ck_zero(&sensitive, MemoryLayout<TPM2B_SENSITIVE_CREATE>.size) }
        var outsideInfo = TPM2B_DATA()
        var pcrs = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        // The sensitive data (a secret to seal, an authorization value) crosses to the TPM encrypted.
        try withEncryptedSession(TPMA_SESSION(TPMA_SESSION_DECRYPT)) { (session) throws(TPMError) in
            try TPMError.check(
                ck_Esys_Create(
                    esys, primary, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &sensitive, &template,
                    &outsideInfo, &pcrs, &outPrivate, &outPublic, nil, nil, nil),
                operation)
        }
        defer {
            TPMBuffers.zeroAndFree(outPrivate)
            TPMBuffers.zeroAndFree(outPublic)
        }
        guard let outPrivate, let outPublic else {
            throw TPMError(.failed, "\(operation): the TPM returned no object")
        }
        return TPMBlob(
            kind: kind, publicArea: try TPMMarshalling.marshal(outPublic.pointee),
            privateArea: try TPMMarshalling.marshal(outPrivate.pointee))
    }

    /// Loads a blob of `kind` under the primary in an encrypted session (``withEncryptedSession(_:_:)``), sets
    /// its authorization value, and runs `body` with its handle and the session, whose attributes are then
    /// `encrypting` (which of the command's first parameter and the response's first parameter travel
    /// encrypted); flushes both from the TPM whatever happens.
    func withLoaded<Result>(
        _ blob: TPMBlob, kind: TPMBlob.Kind, auth: [UInt8] = [], operation: String, encrypting: TPMA_SESSION,
        _ body: (ESYS_TR, ESYS_TR) throws(TPMError) -> Result
    ) throws(TPMError) -> Result {
        try blob.require(kind)
        var inPublic = try TPMMarshalling.unmarshalPublic(blob.publicArea)
        var inPrivate = try TPMMarshalling.unmarshalPrivate(blob.privateArea)
        return try withEncryptedSession(0) { (session) throws(TPMError) -> Result in
            var handle = ESYS_TR(ESYS_TR_NONE)
            try TPMError.check(
                ck_Esys_Load(
                    esys, primary, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &inPrivate, &inPublic,
                    &handle),
                "\(operation): loading the \(kind) into the TPM")
            defer { _ = ck_Esys_FlushContext(esys, handle) }
            var authValue = TPM2B_AUTH()
            defer { ck_zero(&authValue, MemoryLayout<TPM2B_AUTH>.size) }
            authValue.size = try TPMBuffers.fill(&authValue.buffer, with: auth, what: "the authorization value")
            try TPMError.check(
                ck_Esys_TR_SetAuth(esys, handle, &authValue), "\(operation): setting the authorization")
            try setAttributes(of: session, encrypting)
            return try body(handle, session)
        }
    }

    /// Runs `body` with a new HMAC session salted with the storage primary key, with `encrypting` among its
    /// attributes, and flushes it after. Authorization values then never cross to the TPM (the session proves them
    /// with an HMAC), and the parameters marked travel encrypted with AES-128-CFB under the session key, which only
    /// this process and the TPM know: whoever listens on the bus or the TCTI sees neither.
    func withEncryptedSession<Result>(
        _ encrypting: TPMA_SESSION, _ body: (ESYS_TR) throws(TPMError) -> Result
    ) throws(TPMError) -> Result {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMI_ALG_SYM(TPM2_ALG_AES)
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        var session = ESYS_TR(ESYS_TR_NONE)
        try TPMError.check(
            ck_Esys_StartAuthSession(
                esys, primary, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                ESYS_TR(ESYS_TR_NONE), nil, TPM2_SE(TPM2_SE_HMAC), &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256),
                &session),
            "starting an encrypted session with the TPM")
        defer { _ = ck_Esys_FlushContext(esys, session) }
        try setAttributes(of: session, encrypting)
        return try body(session)
    }

    /// Sets the session's attributes to `encrypting`, kept open across commands (it is flushed explicitly).
    private func setAttributes(of session: ESYS_TR, _ encrypting: TPMA_SESSION) throws(TPMError) {
        try TPMError.check(
            ck_Esys_TRSess_SetAttributes(
                esys, session, TPMA_SESSION(TPMA_SESSION_CONTINUESESSION) | encrypting, 0xFF),
            "setting the TPM session's attributes")
    }
}
