import KeychainTPM
import TestSupport
import Testing

@Suite(
    "TPM NV counters", .enabled(if: TPMTests.available, TPMTests.skipComment))
struct NVCounterTests {
    @Test("a counter only goes up, and keeps its value across connections and a restart of the TPM")
    func monotonic() throws {
        let tpm = try SoftwareTPM()
        let counter = TPMNVCounter.keychain
        var values: [UInt64] = []
        do {
            let context = try TPMContext.open(tcti: tpm.tcti)
            values.append(try context.define(counter))
            for _ in 0..<4 { values.append(try context.increment(counter)) }
            #expect(try context.read(counter) == values.last)
        }
        #expect(values == values.sorted() && Set(values).count == values.count, "\(values)")
        #expect(try TPMContext.open(tcti: tpm.tcti).read(counter) == values.last)
        tpm.stop()
        try tpm.start()
        let reopened = try TPMContext.open(tcti: tpm.tcti)
        #expect(try reopened.read(counter) == values.last)
        #expect(try reopened.increment(counter) == (values.last ?? 0) + 1)
    }

    @Test("attack: defining the counter again (to start it over) is refused")
    func redefine() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let counter = TPMNVCounter(index: 0x0100_4B44)
        try context.define(counter)
        let value = try context.increment(counter)
        #expect(throws: TPMError.self) { try context.define(counter) }
        #expect(try context.read(counter) == value)
    }

    @Test("an index outside the owner's range, or not defined, is refused naming it")
    func badIndex() throws {
        let tpm = try SoftwareTPM()
        let context = try TPMContext.open(tcti: tpm.tcti)
        let outside = #expect(throws: TPMError.self) { try context.define(TPMNVCounter(index: 0x01C0_0002)) }
        #expect(outside?.message.contains("1c00002") == true, "\(String(describing: outside))")
        let missing = #expect(throws: TPMError.self) { try context.read(TPMNVCounter(index: 0x0100_0001)) }
        #expect(missing?.message.contains("1000001") == true, "\(String(describing: missing))")
    }
}
