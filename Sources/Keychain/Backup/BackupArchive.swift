import Foundation
import KeychainCore
import KeychainWire

/// The encrypted backup archive (`security backup-keychain`): a clear header, then one sealed message per item in
/// libsodium's secretstream under a key Argon2id derives from the backup passphrase, the last message a final one
/// that repeats the item count.
///
/// Header (93 bytes, all little-endian): `SKBACKUP` · format version (1 byte, 1) · item count (4) · creation time
/// (8, seconds since 1970) · Argon2id passes (8) and memory in bytes (8) · salt (16) · secretstream header (24) ·
/// check (16: keyed BLAKE2b of the bytes before it under the derived key, so a wrong passphrase is told from a
/// damaged or reordered item; it gives a guesser nothing the first item would not, at the same Argon2id cost).
/// Each message: its sealed length (4) and the sealed bytes; the whole header is every message's associated data,
/// so a header edited in place opens nothing. An item: class (4 bytes), attributes (the engine's binary attribute
/// form, length-prefixed) and data (length-prefixed). Nothing but the header is in clear, and nothing may follow the
/// final message. The header's Argon2id cost is held to ``maximumCost`` before any key is derived: it is read before
/// anything is authenticated, so an edited cost must not buy hours of passes or gigabytes of memory on the reader.
enum BackupArchive {
    static let magic = Array("SKBACKUP".utf8)
    static let version: UInt8 = 1
    static let checkByteCount = 16
    static let headerByteCount = 8 + 1 + 4 + 8 + 8 + 8 + 16 + SecretStream.headerByteCount + checkByteCount
    /// The largest sealed message read back (a 16 MiB secret, its attributes and framing).
    static let maximumMessageByteCount = 18 << 20
    /// What the final message says before the count.
    static let endMarker = Array("END".utf8)
    /// The most Argon2id work an archive may ask of its reader. The cost is read before anything is authenticated,
    /// so without a ceiling one flipped bit of the header would set the reader to hours of passes or gigabytes of
    /// memory; the writer is held to the same ceiling, so every archive it makes opens.
    static let maximumCost = PasscodeCost(passes: 16, memoryBytes: 1 << 30)

    /// Throws unless a backup may be written or read at `cost`: within Argon2id's limits and this format's ceiling.
    static func checkCost(_ cost: PasscodeCost) throws(EngineError) {
        guard cost.passes >= PasscodeCost.minimum.passes, cost.passes <= maximumCost.passes,
            cost.memoryBytes >= PasscodeCost.minimum.memoryBytes, cost.memoryBytes <= maximumCost.memoryBytes
        else {
            throw EngineError(
                .param,
                "an Argon2id cost of \(cost.passes) passes over \(cost.memoryBytes) bytes is outside what a backup "
                    + "uses (\(PasscodeCost.minimum.passes)–\(maximumCost.passes) passes, "
                    + "\(PasscodeCost.minimum.memoryBytes) bytes–\(maximumCost.memoryBytes >> 20) MiB)")
        }
    }

    /// The reason given when the header does not hold together (`detail` says how, when it can be told): a wrong
    /// passphrase and an edited header look alike to the reader, by design.
    static func damaged(_ detail: String) -> String {
        "wrong passphrase or damaged header: \(detail)"
    }

    /// One archived item.
    struct Entry: Equatable {
        var itemClass: ItemClass
        var attributes: ItemAttributes
        var data: Data
    }

    /// What an archive's header says, readable without the passphrase.
    struct Header: Equatable {
        var itemCount: Int
        var created: Date
        var cost: PasscodeCost
        var salt: [UInt8]
        var streamHeader: [UInt8]
        var check: [UInt8] = []

        /// The header's bytes before its check.
        var checkedBytes: [UInt8] {
            var bytes = magic + [version]
            bytes.appendLittleEndian(UInt32(itemCount))
            bytes.appendLittleEndian(UInt64(bitPattern: Int64(created.timeIntervalSince1970.rounded(.down))))
            bytes.appendLittleEndian(cost.passes)
            bytes.appendLittleEndian(UInt64(cost.memoryBytes))
            return bytes + salt + streamHeader
        }

        /// The whole header.
        var bytes: [UInt8] { checkedBytes + check }

        /// The check a key gives this header.
        func check(under key: SecretKey) throws(EngineError) -> [UInt8] {
            let input = Array("swift-keychain backup check".utf8) + checkedBytes
            return Array(try KeyedHash.hash(input, key: key, outputByteCount: BackupArchive.checkByteCount))
        }

        init(itemCount: Int, created: Date, cost: PasscodeCost, salt: [UInt8], streamHeader: [UInt8]) {
            self.itemCount = itemCount
            self.created = created
            self.cost = cost
            self.salt = salt
            self.streamHeader = streamHeader
        }

        /// Reads a header; anything but this format's is errSecDecode saying what.
        init(_ bytes: [UInt8]) throws(EngineError) {
            guard bytes.count == headerByteCount else {
                throw EngineError(.decode, "archive truncated: it ends inside its header")
            }
            guard Array(bytes.prefix(8)) == magic else {
                throw EngineError(.decode, "this is not a swift-keychain backup (no SKBACKUP header)")
            }
            guard bytes[8] == version else {
                throw EngineError(.decode, "the backup's format version \(bytes[8]) is not one this build reads (1)")
            }
            var reader = ByteReader(bytes, range: 9..<bytes.count)
            itemCount = Int(try reader.littleEndian() as UInt32)
            created = Date(timeIntervalSince1970: Double(Int64(bitPattern: try reader.littleEndian())))
            let passes: UInt64 = try reader.littleEndian()
            let memory: UInt64 = try reader.littleEndian()
            // Checked before any Argon2id runs: see maximumCost.
            guard memory <= UInt64(BackupArchive.maximumCost.memoryBytes) else {
                throw EngineError(
                    .decode, BackupArchive.damaged("its Argon2id memory cost of \(memory) bytes is past any backup's"))
            }
            cost = PasscodeCost(passes: passes, memoryBytes: Int(memory))
            do throws(EngineError) {
                try BackupArchive.checkCost(cost)
            } catch {
                throw EngineError(.decode, BackupArchive.damaged(error.message))
            }
            salt = Array(try reader.bytes(16))
            streamHeader = Array(try reader.bytes(SecretStream.headerByteCount))
            check = Array(try reader.bytes(BackupArchive.checkByteCount))
        }
    }

    /// The key a passphrase and salt give.
    static func key(passphrase: Passcode, salt: [UInt8], cost: PasscodeCost) throws(EngineError) -> SecretKey {
        try PasscodeHash.deriveKey(passcode: passphrase, salt: salt, cost: cost)
    }

    /// An item's plaintext message.
    static func encode(_ entry: Entry) -> [UInt8] {
        let attributes = AttributeCoder.encode(entry.attributes)
        return attributes.withUnsafeBytes { attributes in
            entry.data.withUnsafeBytes { data in message(entry.itemClass, codedAttributes: attributes, data: data) }
        }
    }

    /// An item's plaintext message from its attributes in ``AttributeCoder``'s form: its class, then its attributes
    /// and its secret, each length-prefixed. Sized once, so that no outgrown copy of the secret is left unwiped.
    static func message(
        _ itemClass: ItemClass, codedAttributes: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + 4 + codedAttributes.count + 4 + data.count)
        bytes.append(contentsOf: itemClass.rawValue.utf8)
        bytes.appendLengthPrefixed(codedAttributes)
        bytes.appendLengthPrefixed(data)
        return bytes
    }

    /// An item from its plaintext message, `range` of `bytes` (read in place: a copy of the plaintext, secret
    /// included, would outlive the buffer the caller wipes).
    static func decode(_ bytes: [UInt8], range: Range<Int>) throws(EngineError) -> Entry {
        var reader = ByteReader(bytes, range: range)
        let name = String(decoding: try reader.bytes(4), as: UTF8.self)
        guard let itemClass = ItemClass(rawValue: name) else {
            throw EngineError(.decode, "the backup holds an item of class \"\(name)\", which is not one")
        }
        let attributes = try AttributeCoder.decode(Data(try reader.lengthPrefixed()))
        let data = Data(try reader.lengthPrefixed())
        guard reader.isAtEnd else { throw EngineError(.decode, "an item of the backup has bytes after its data") }
        return Entry(itemClass: itemClass, attributes: attributes, data: data)
    }

    /// The final message: the end marker and the item count.
    static func finalMessage(count: Int) -> [UInt8] {
        var bytes = endMarker
        bytes.appendLittleEndian(UInt32(count))
        return bytes
    }
}

/// Writes an archive, item by item, to a sink (a file being written atomically, standard output).
final class BackupWriter {
    /// Where the bytes go.
    typealias Sink = ([UInt8]) throws(EngineError) -> Void
    private let output: Sink
    private let sealer: SecretStream.Sealer
    private let header: [UInt8]
    private(set) var written = 0
    private let expected: Int
    /// Sealed bytes not yet handed to the sink (only sealed bytes and the clear header are ever held here).
    private var pending: [UInt8] = []
    static let bufferSize = 64 << 10

    /// Starts an archive of `itemCount` items under `passphrase`, writing its header.
    init(to output: @escaping Sink, itemCount: Int, passphrase: Passcode, cost: PasscodeCost) throws(EngineError) {
        try BackupArchive.checkCost(cost)
        let salt = try RandomBytes.make(count: 16)
        let key = try BackupArchive.key(passphrase: passphrase, salt: salt, cost: cost)
        sealer = try SecretStream.Sealer(key: key)
        var described = BackupArchive.Header(
            itemCount: itemCount, created: Date(), cost: cost, salt: salt, streamHeader: sealer.header)
        described.check = try described.check(under: key)
        header = described.bytes
        self.output = output
        expected = itemCount
        pending.reserveCapacity(Self.bufferSize + (4 << 10))
        try write(header)
    }

    /// Seals and writes one item.
    func append(_ entry: BackupArchive.Entry) throws(EngineError) {
        try append(message: BackupArchive.encode(entry), describing: entry.itemClass)
    }

    /// Seals and writes one item given as the engine holds it: attributes in ``AttributeCoder``'s form, which is
    /// what ``BackupArchive/encode(_:)`` writes and ``BackupArchive/decode(_:range:)`` reads.
    func append(
        itemClass: ItemClass, codedAttributes: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) throws(EngineError) {
        try append(
            message: BackupArchive.message(itemClass, codedAttributes: codedAttributes, data: data),
            describing: itemClass)
    }

    /// Seals and writes one item's plaintext message, then wipes it (it holds the item's secret).
    private func append(message: [UInt8], describing itemClass: ItemClass) throws(EngineError) {
        defer { message.wipe() }
        guard written < expected else { throw EngineError(.param, "the archive was started for \(expected) items") }
        // A reader refuses a message past its maximum, so one is refused here, at backup time, not at restore time.
        guard message.count + SecretStream.overhead <= BackupArchive.maximumMessageByteCount else {
            throw EngineError(
                .dataTooLarge,
                "item \(written + 1) (\(itemClass.rawValue)) takes \(message.count) bytes, past the "
                    + "\(BackupArchive.maximumMessageByteCount) a backup holds per item")
        }
        try seal(message, isFinal: false)
        written += 1
    }

    /// Writes the final message; the archive is complete.
    func finish() throws(EngineError) {
        guard written == expected else {
            throw EngineError(.internalComponent, "\(written) items were written of the \(expected) announced")
        }
        try seal(BackupArchive.finalMessage(count: written), isFinal: true)
    }

    private func seal(_ message: [UInt8], isFinal: Bool) throws(EngineError) {
        // Framed and sealed in place at the end of the pending bytes: no copy of the sealed message.
        let sealedCount = message.count + SecretStream.overhead
        let lengthAt = pending.count
        pending.append(contentsOf: repeatElement(0, count: 4 + sealedCount))
        var outcome: Result<Int, EngineError> = .failure(EngineError(.internalComponent, "nothing was sealed"))
        message.withUnsafeBytes { plain in
            pending.withUnsafeMutableBytes { out in
                outcome = Result { () throws(EngineError) in
                    try sealer.seal(
                        plain, associatedData: header, isFinal: isFinal,
                        into: UnsafeMutableRawBufferPointer(rebasing: out[(lengthAt + 4)...]))
                }
            }
        }
        let count: Int
        do throws(EngineError) {
            count = try outcome.get()
        } catch {
            pending.removeSubrange(lengthAt...)
            throw error
        }
        pending.removeSubrange((lengthAt + 4 + count)...)
        for shift in 0..<4 { pending[lengthAt + shift] = UInt8(truncatingIfNeeded: count >> (8 * shift)) }
        if pending.count >= Self.bufferSize || isFinal { try flush() }
    }

    private func write(_ bytes: [UInt8]) throws(EngineError) {
        pending.append(contentsOf: bytes)
        if pending.count >= Self.bufferSize { try flush() }
    }

    /// Hands the pending bytes to the sink: in writes of about 64 KiB, not one per item.
    private func flush() throws(EngineError) {
        guard !pending.isEmpty else { return }
        try output(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
