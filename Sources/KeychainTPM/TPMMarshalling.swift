import CTSS2

/// The TPM's own wire form of the public and private areas (libtss2-mu), which a ``TPMBlob`` carries.
enum TPMMarshalling {
    static func marshal(_ value: TPM2B_PUBLIC) throws(TPMError) -> [UInt8] {
        var value = value
        return try marshal(capacity: MemoryLayout<TPM2B_PUBLIC>.size, "public area") { buffer, count, offset in
            ck_Tss2_MU_TPM2B_PUBLIC_Marshal(&value, buffer, count, offset)
        }
    }

    static func marshal(_ value: TPM2B_PRIVATE) throws(TPMError) -> [UInt8] {
        var value = value
        return try marshal(capacity: MemoryLayout<TPM2B_PRIVATE>.size, "private area") { buffer, count, offset in
            ck_Tss2_MU_TPM2B_PRIVATE_Marshal(&value, buffer, count, offset)
        }
    }

    static func unmarshalPublic(_ bytes: [UInt8]) throws(TPMError) -> TPM2B_PUBLIC {
        var value = TPM2B_PUBLIC()
        var offset = 0
        let rc = ck_Tss2_MU_TPM2B_PUBLIC_Unmarshal(bytes, bytes.count, &offset, &value)
        guard rc == 0, offset == bytes.count else {
            throw TPMError(.invalidBlob, "the TPM blob's public area (\(bytes.count) bytes) does not read as one")
        }
        return value
    }

    static func unmarshalPrivate(_ bytes: [UInt8]) throws(TPMError) -> TPM2B_PRIVATE {
        var value = TPM2B_PRIVATE()
        var offset = 0
        let rc = ck_Tss2_MU_TPM2B_PRIVATE_Unmarshal(bytes, bytes.count, &offset, &value)
        guard rc == 0, offset == bytes.count else {
            throw TPMError(.invalidBlob, "the TPM blob's private area (\(bytes.count) bytes) does not read as one")
        }
        return value
    }

    private static func marshal(
        capacity: Int, _ what: String,
        _ write: (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<Int>) -> TSS2_RC
    ) throws(TPMError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: capacity)
        var offset = 0
        let rc = bytes.withUnsafeMutableBufferPointer { buffer -> TSS2_RC in
            // TPM_RC_FAILURE; never, as the buffer is not empty.
            guard let base = buffer.baseAddress else { return 0x101 }
            return write(base, capacity, &offset)
        }
        try TPMError.check(rc, "marshalling the \(what)")
        return Array(bytes.prefix(offset))
    }
}
