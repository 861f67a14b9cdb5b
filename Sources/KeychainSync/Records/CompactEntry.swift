import Foundation
import KeychainCore

/// Format 3 of item and tombstone log entries (issue 23): binary, with nothing the record's name already says.
///
/// The body after the signature:
///
/// | bytes | field |
/// |---|---|
/// | 1 | format, 3 (a JSON body, formats 1 and 2, starts with `{`) |
/// | 1 | kind: 1 item, 2 tombstone |
/// | 8 | clock (``HybridTime/rawValue``, little-endian) |
/// | 32 | the hash of the author's previous entry; absent at sequence 1, whose previous is empty |
/// | 16 | the item's UUID |
/// | 4 | item only: the epoch's number (little-endian) |
/// | 16 | item only: the epoch's creator (a device id, as its bytes) |
/// | 1 | item only: the key class, 1 `ak`, 2 `ck` |
/// | rest | item only: the sealed payload (``ItemSealing``) |
///
/// The author and the sequence are the record name's (`devices/<author>/log/<sequence>`), which the signature
/// covers: a record copied under another name fails to verify before its body is read. Decoding is strict
/// (every length checked, nothing left over), and what format 3 cannot say (an entry without its previous hash,
/// an epoch created by something that is not a device id) is written as JSON instead.
enum CompactEntry {
    static let format: UInt8 = 3

    private enum Kind: UInt8 {
        case item = 1, tombstone
    }

    private static let hashByteCount = 32
    private static let deviceByteCount = 16

    /// Whether a record's body (after the signature) is in format 3.
    static func isCompact(_ body: ArraySlice<UInt8>) -> Bool { body.first == format }

    /// The format 3 body of `entry`, the record `name`, or `nil` when format 3 cannot hold it.
    static func encode(_ entry: LogEntry, name: String) -> [UInt8]? {
        guard case .log(let device, let sequence)? = RecordName.parse(name), device == entry.author,
            sequence == entry.sequence, let version = entry.item, version.wrappedKey == nil,
            entry.member == nil, entry.subject == nil, entry.acceptedThrough == nil, entry.acceptedHash == nil,
            entry.epoch == nil, entry.shares == nil, entry.cursors == nil, entry.heads == nil, entry.removed == nil,
            entry.nonce == nil, entry.commitment == nil, let previous = entry.previous,
            previous.count == (sequence == 1 ? 0 : hashByteCount)
        else { return nil }
        var bytes: [UInt8] = [format]
        switch entry.kind {
        case .item:
            guard let epoch = version.epoch, let creator = deviceBytes(epoch.creator),
                let number = UInt32(exactly: epoch.number), let keyClass = version.keyClass,
                let payload = version.payload, payload.count >= AEAD.overhead
            else { return nil }
            bytes.reserveCapacity(80 + payload.count)
            bytes.append(Kind.item.rawValue)
            appendHeader(entry, previous, version.uuid, to: &bytes)
            bytes.appendLittleEndian(number)
            bytes.append(contentsOf: creator)
            bytes.append(keyClass == .whenUnlocked ? 1 : 2)
            bytes.append(contentsOf: payload)
        case .tombstone:
            guard version.epoch == nil, version.keyClass == nil, version.payload == nil else { return nil }
            bytes.append(Kind.tombstone.rawValue)
            appendHeader(entry, previous, version.uuid, to: &bytes)
        default:
            return nil
        }
        return bytes
    }

    /// The entry whose format 3 body is `bytes[range]`, read as the record `name` (its author and sequence).
    static func decode(_ bytes: [UInt8], range: Range<Int>, name: String) throws(SyncError) -> LogEntry {
        guard case .log(let author, let sequence)? = RecordName.parse(name) else {
            throw SyncError(.damaged, "the record \(name) is in format 3 but not at a log entry's place")
        }
        do throws(EngineError) {
            var reader = ByteReader(bytes, range: range)
            guard try reader.byte() == format, let kind = Kind(rawValue: try reader.byte()) else {
                throw EngineError(.decode, "an unknown format or kind")
            }
            let clock = HybridTime(rawValue: try reader.littleEndian())
            let previous = Data(try reader.bytes(sequence == 1 ? 0 : hashByteCount))
            let uuidBytes = try reader.bytes(16)
            guard let uuid = uuidBytes.withUnsafeBytes({ UUID(bytes: $0) }) else {
                throw EngineError(.decode, "a malformed UUID")
            }
            var entry = LogEntry(
                format: Int(format), author: author, sequence: sequence, clock: clock,
                kind: kind == .item ? .item : .tombstone)
            entry.previous = previous
            entry.item = SealedVersion(uuid: uuid)
            if kind == .item {
                let number: UInt32 = try reader.littleEndian()
                let creator = try reader.bytes(deviceByteCount).hexText()
                let keyClass: SyncKeyClass
                switch try reader.byte() {
                case 1: keyClass = .whenUnlocked
                case 2: keyClass = .afterFirstUnlock
                default: throw EngineError(.decode, "an unknown key class")
                }
                let payload = try reader.bytes(reader.remainingCount)
                guard payload.count >= AEAD.overhead else {
                    throw EngineError(.decode, "a payload too short to be sealed")
                }
                entry.item?.epoch = EpochID(number: Int(number), creator: creator)
                entry.item?.keyClass = keyClass
                entry.item?.payload = Data(payload)
            }
            guard reader.isAtEnd else { throw EngineError(.decode, "bytes after its end") }
            return entry
        } catch {
            throw SyncError(.damaged, "the record \(name) does not parse: \(error.message)")
        }
    }

    private static func appendHeader(_ entry: LogEntry, _ previous: Data, _ uuid: UUID, to bytes: inout [UInt8]) {
        bytes.appendLittleEndian(entry.clock.rawValue)
        bytes.append(contentsOf: previous)
        bytes.appendUUID(uuid)
    }

    /// The 16 bytes of a device id (32 lowercase hex digits), or `nil` for anything else.
    private static func deviceBytes(_ id: String) -> [UInt8]? {
        guard RecordName.isDeviceID(Substring(id)) else { return nil }
        let digits = Array(id.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(deviceByteCount)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = UInt8(hexDigit: digits[index]), let low = UInt8(hexDigit: digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
