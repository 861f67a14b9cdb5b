import CTSS2

/// A monotonic counter in the TPM's non-volatile memory (an NV index of type counter): it can only go up, and a
/// newly defined counter starts at the highest value any counter of this TPM ever had, so deleting and redefining
/// it does not roll it back either. Nothing on disk can restore an earlier value.
public struct TPMNVCounter: Sendable, Hashable {
    /// The NV index.
    public let index: UInt32

    /// The keychain's counter: 0x0100_4B43 ("KC") in the range the TCG leaves to the owner (0x0100_0000 to
    /// 0x013F_FFFF).
    public static let keychain = TPMNVCounter(index: 0x0100_4B43)

    /// The counter at `index`, which must be in the owner's range.
    public init(index: UInt32) {
        self.index = index
    }

    /// The range of NV indices the TCG leaves to the platform's owner.
    public static let ownerRange: ClosedRange<UInt32> = 0x0100_0000...0x013F_FFFF
}

extension TPMContext {
    /// Defines `counter` under the owner hierarchy (whose authorization must be empty) and increments it once, so
    /// it has a value; returns that value. Throws when the index is outside the owner range or already defined.
    @discardableResult
    public func define(_ counter: TPMNVCounter) throws(TPMError) -> UInt64 {
        guard TPMNVCounter.ownerRange.contains(counter.index) else {
            throw TPMError(
                .invalidArgument, "NV index 0x\(String(counter.index, radix: 16)) is not in the owner's range")
        }
        try withSession { (session) throws(TPMError) in
            var auth = TPM2B_AUTH()
            var publicInfo = TPM2B_NV_PUBLIC()
            publicInfo.nvPublic.nvIndex = counter.index
            publicInfo.nvPublic.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
            publicInfo.nvPublic.attributes =
                TPMA_NV(TPMA_NV_OWNERWRITE | TPMA_NV_OWNERREAD | TPMA_NV_NO_DA)
                | (TPMA_NV(TPM2_NT_COUNTER) << TPMA_NV(TPMA_NV_TPM2_NT_SHIFT))
            publicInfo.nvPublic.dataSize = 8
            var handle = ESYS_TR(ESYS_TR_NONE)
            try TPMError.check(
                ck_Esys_NV_DefineSpace(
                    session.esys, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                    ESYS_TR(ESYS_TR_NONE), &auth, &publicInfo, &handle),
                "defining the TPM counter at NV index 0x\(String(counter.index, radix: 16))")
            _ = ck_Esys_TR_Close(session.esys, &handle)
        }
        return try increment(counter)
    }

    /// Adds one to `counter` and returns its new value.
    @discardableResult
    public func increment(_ counter: TPMNVCounter) throws(TPMError) -> UInt64 {
        try withSession { (session) throws(TPMError) -> UInt64 in
            try session.withNVIndex(counter) { (handle) throws(TPMError) -> UInt64 in
                try TPMError.check(
                    ck_Esys_NV_Increment(
                        session.esys, ESYS_TR(ESYS_TR_RH_OWNER), handle, ESYS_TR(ESYS_TR_PASSWORD),
                        ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE)),
                    "incrementing the TPM counter at NV index 0x\(String(counter.index, radix: 16))")
                return try session.read(counter, handle: handle)
            }
        }
    }

    /// Deletes `counter` from the TPM's NV memory (under the owner hierarchy, whose authorization must be empty),
    /// giving its space back. Defining it again later starts it at the highest value any counter of this TPM had.
    public func undefine(_ counter: TPMNVCounter) throws(TPMError) {
        try withSession { (session) throws(TPMError) in
            var handle = ESYS_TR(ESYS_TR_NONE)
            try TPMError.check(
                ck_Esys_TR_FromTPMPublic(
                    session.esys, counter.index, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
                    &handle),
                "finding the TPM counter at NV index 0x\(String(counter.index, radix: 16)) (is it defined?)")
            let undefined = ck_Esys_NV_UndefineSpace(
                session.esys, ESYS_TR(ESYS_TR_RH_OWNER), handle, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                ESYS_TR(ESYS_TR_NONE))
            // ESAPI forgets the handle itself when the index is gone.
            if undefined != 0 { _ = ck_Esys_TR_Close(session.esys, &handle) }
            try TPMError.check(
                undefined, "deleting the TPM counter at NV index 0x\(String(counter.index, radix: 16))")
        }
    }

    /// The value of `counter`.
    public func read(_ counter: TPMNVCounter) throws(TPMError) -> UInt64 {
        try withSession { (session) throws(TPMError) -> UInt64 in
            try session.withNVIndex(counter) { (handle) throws(TPMError) -> UInt64 in
                try session.read(counter, handle: handle)
            }
        }
    }
}

extension TPMSession {
    /// Runs `body` with an ESAPI handle for the NV index of `counter`, read from the TPM, and closes it after.
    fileprivate func withNVIndex<Result>(
        _ counter: TPMNVCounter, _ body: (ESYS_TR) throws(TPMError) -> Result
    ) throws(TPMError) -> Result {
        var handle = ESYS_TR(ESYS_TR_NONE)
        try TPMError.check(
            ck_Esys_TR_FromTPMPublic(
                esys, counter.index, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &handle),
            "finding the TPM counter at NV index 0x\(String(counter.index, radix: 16)) (is it defined?)")
        defer { _ = ck_Esys_TR_Close(esys, &handle) }
        return try body(handle)
    }

    fileprivate func read(_ counter: TPMNVCounter, handle: ESYS_TR) throws(TPMError) -> UInt64 {
        try ensureCounter(counter, handle: handle)
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        try TPMError.check(
            ck_Esys_NV_Read(
                esys, ESYS_TR(ESYS_TR_RH_OWNER), handle, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE),
                ESYS_TR(ESYS_TR_NONE), 8, 0, &data),
            "reading the TPM counter at NV index 0x\(String(counter.index, radix: 16))")
        defer { TPMBuffers.zeroAndFree(data) }
        guard let data, data.pointee.size == 8 else {
            throw TPMError(.failed, "reading the TPM counter: the TPM returned no 8-byte value")
        }
        // TPM counters are big-endian.
        return TPMBuffers.bytes(of: data.pointee.buffer, size: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Throws unless the index is a counter: whoever holds the owner hierarchy could otherwise undefine it and define
    /// an ordinary index in its place, holding whatever value they write (a counter defined anew starts at the
    /// highest value any counter had, and only rises).
    private func ensureCounter(_ counter: TPMNVCounter, handle: ESYS_TR) throws(TPMError) {
        var nvPublic: UnsafeMutablePointer<TPM2B_NV_PUBLIC>?
        var name: UnsafeMutablePointer<TPM2B_NAME>?
        try TPMError.check(
            ck_Esys_NV_ReadPublic(
                esys, handle, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &nvPublic, &name),
            "reading the public area of the TPM counter at NV index 0x\(String(counter.index, radix: 16))")
        defer {
            free(nvPublic)
            free(name)
        }
        let attributes = nvPublic?.pointee.nvPublic.attributes ?? 0
        let type = (attributes & TPMA_NV(TPMA_NV_TPM2_NT_MASK)) >> TPMA_NV(TPMA_NV_TPM2_NT_SHIFT)
        guard type == TPMA_NV(TPM2_NT_COUNTER) else {
            throw TPMError(
                .invalidBlob,
                "the NV index 0x\(String(counter.index, radix: 16)) is not a counter (its type is \(type)): it was "
                    + "undefined and defined again as another kind, so its value proves nothing")
        }
    }
}
