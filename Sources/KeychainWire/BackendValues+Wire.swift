import Foundation
import KeychainCore

// The wire form (WireWriter, WireReader) of the backend's values that keychaind's messages carry: each type
// written field by field in declaration order, read back the same way.

extension ItemClass {
    func write(to writer: inout WireWriter) { writer.raw(self) }
    init(wire reader: inout WireReader) throws(EngineError) { self = try reader.raw(ItemClass.self) }
}

extension AttributeValue {
    private enum Tag: UInt8 {
        case string = 1, data, integer, date, bool
    }

    func write(to writer: inout WireWriter) {
        switch self {
        case .string(let text):
            writer.byte(Tag.string.rawValue)
            writer.string(text)
        case .data(let bytes):
            writer.byte(Tag.data.rawValue)
            writer.data(bytes)
        case .integer(let number):
            writer.byte(Tag.integer.rawValue)
            writer.int64(number)
        case .date(let date):
            writer.byte(Tag.date.rawValue)
            writer.date(date)
        case .bool(let flag):
            writer.byte(Tag.bool.rawValue)
            writer.bool(flag)
        }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let tag = try reader.byte()
        switch Tag(rawValue: tag) {
        case .string: self = .string(try reader.string())
        case .data: self = .data(try reader.data())
        case .integer: self = .integer(try reader.int64())
        case .date: self = .date(try reader.date())
        case .bool: self = .bool(try reader.bool())
        case nil: throw reader.malformed("an attribute value of unknown kind \(tag)")
        }
    }
}

extension ItemAttributes {
    func write(to writer: inout WireWriter) {
        writer.uint32(UInt32(count))
        for (key, value) in self {
            writer.raw(key)
            value.write(to: &writer)
        }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init()
        // Each attribute takes at least its name's length (4 bytes), the name and a value's tag.
        for (key, value) in try reader.list(
            minimumSize: 6,
            { (reader) throws(EngineError) in
                (try reader.raw(AttributeKey.self), try AttributeValue(wire: &reader))
            })
        {
            guard self[key] == nil else { throw reader.malformed("the attribute \(key.rawValue) appears twice") }
            self[key] = value
        }
    }
}

extension PersistentReference {
    func write(to writer: inout WireWriter) {
        itemClass.write(to: &writer)
        writer.uuid(uuid)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(itemClass: try ItemClass(wire: &reader), uuid: try reader.uuid())
    }
}

extension NewItem {
    func write(to writer: inout WireWriter) {
        itemClass.write(to: &writer)
        attributes.write(to: &writer)
        writer.data(data)
        writer.bool(allowsThisDeviceOnlySynchronizable)
        writer.optional(authentication) { $1.write(to: &$0) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            itemClass: try ItemClass(wire: &reader), attributes: try ItemAttributes(wire: &reader),
            data: try reader.data(), allowsThisDeviceOnlySynchronizable: try reader.bool(),
            authentication: try reader.optional { (reader) throws(EngineError) in try ItemAuthentication(wire: &reader)
            })
    }
}

extension Item {
    func write(to writer: inout WireWriter) {
        itemClass.write(to: &writer)
        attributes.write(to: &writer)
        writer.optional(data) { $0.data($1) }
        persistentReference.write(to: &writer)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            itemClass: try ItemClass(wire: &reader), attributes: try ItemAttributes(wire: &reader),
            data: try reader.optional { (reader) throws(EngineError) in try reader.data() },
            persistentReference: try PersistentReference(wire: &reader))
    }
}

extension ItemChanges {
    func write(to writer: inout WireWriter) {
        attributes.write(to: &writer)
        writer.optional(data) { $0.data($1) }
        writer.bool(allowsThisDeviceOnlySynchronizable)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            attributes: try ItemAttributes(wire: &reader),
            data: try reader.optional { (reader) throws(EngineError) in try reader.data() },
            allowsThisDeviceOnlySynchronizable: try reader.bool())
    }
}

extension ItemQuery {
    func write(to writer: inout WireWriter) {
        writer.optional(itemClass) { $1.write(to: &$0) }
        attributes.write(to: &writer)
        switch synchronizable {
        case .localOnly: writer.byte(0)
        case .synchronizableOnly: writer.byte(1)
        case .any: writer.byte(2)
        }
        writer.optional(persistentReference) { $1.write(to: &$0) }
        writer.optional(limit) { writer, limit in
            switch limit {
            case .one: writer.byte(0)
            case .all: writer.byte(1)
            case .upTo(let count):
                writer.byte(2)
                writer.int(count)
            }
        }
        writer.int(returning.rawValue)
        writer.bool(caseInsensitive)
        writer.optional(authentication) { $1.write(to: &$0) }
        writer.optional(startingAfter) { $1.write(to: &$0) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let itemClass = try reader.optional { (reader) throws(EngineError) in try ItemClass(wire: &reader) }
        let attributes = try ItemAttributes(wire: &reader)
        let synchronizable: SynchronizableFilter
        switch try reader.byte() {
        case 0: synchronizable = .localOnly
        case 1: synchronizable = .synchronizableOnly
        case 2: synchronizable = .any
        case let other: throw reader.malformed("a synchronizable filter of unknown kind \(other)")
        }
        let reference = try reader.optional { (reader) throws(EngineError) in try PersistentReference(wire: &reader) }
        let limit = try reader.optional { (reader) throws(EngineError) -> MatchLimit in
            switch try reader.byte() {
            case 0: return .one
            case 1: return .all
            case 2: return .upTo(try reader.int())
            case let other: throw reader.malformed("a match limit of unknown kind \(other)")
            }
        }
        self.init(
            itemClass: itemClass, attributes: attributes, synchronizable: synchronizable,
            persistentReference: reference, limit: limit, returning: ReturnOptions(rawValue: try reader.int()),
            caseInsensitive: try reader.bool(),
            authentication: try reader.optional { (reader) throws(EngineError) in try ItemAuthentication(wire: &reader)
            },
            startingAfter: try reader.optional { (reader) throws(EngineError) in
                try PersistentReference(wire: &reader)
            })
    }
}

extension ItemAuthentication {
    func write(to writer: inout WireWriter) {
        writer.optional(passcode) { $0.passcode($1) }
        writer.optional(applicationPassword) { $0.passcode($1) }
        writer.raw(interaction)
        writer.optional(passcodeEpoch) { $0.int64(Int64(bitPattern: $1)) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            passcode: try reader.optional { (reader) throws(EngineError) in try reader.passcode() },
            applicationPassword: try reader.optional { (reader) throws(EngineError) in try reader.passcode() },
            interaction: try reader.raw(Interaction.self),
            passcodeEpoch: try reader.optional { (reader) throws(EngineError) in UInt64(bitPattern: try reader.int64())
            })
    }
}

extension Caller {
    func write(to writer: inout WireWriter) {
        writer.string(applicationIdentifier)
        writer.list(accessGroups) { $0.string($1) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(applicationIdentifier: try reader.string())
        // As sent, even empty: the initializer's default would make the value another than the one sent.
        accessGroups = try reader.list(minimumSize: 4) { (reader) throws(EngineError) in try reader.string() }
    }
}

extension EngineError {
    func write(to writer: inout WireWriter) {
        writer.int64(Int64(code.rawValue))
        writer.string(message)
        writer.optional(resyncSequence) { $0.int64($1) }
        writer.optional(neededFactors) { writer, factors in writer.list(factors) { $0.raw($1) } }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let status = try reader.int64()
        guard let code = Int32(exactly: status).flatMap(Code.init(rawValue:)) else {
            throw reader.malformed("an error of unknown status \(status)")
        }
        self.init(
            code: code, message: try reader.string(),
            resyncSequence: try reader.optional { (reader) throws(EngineError) in try reader.int64() },
            neededFactors: try reader.optional { (reader) throws(EngineError) in
                try reader.list(minimumSize: 4) { (reader) throws(EngineError) in try reader.raw(AccessFactor.self) }
            })
    }
}

extension KeybagStatus {
    func write(to writer: inout WireWriter) {
        writer.uuid(keybagID)
        writer.bool(hasPasscode)
        writer.bool(isLocked)
        writer.bool(hasBeenUnlocked)
        writer.int(failedAttempts)
        writer.optional(retryAfter) { $0.date($1) }
        writer.optional(eraseAfter) { $0.int($1) }
        writer.int64(Int64(bitPattern: lockEpoch))
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            keybagID: try reader.uuid(), hasPasscode: try reader.bool(), isLocked: try reader.bool(),
            hasBeenUnlocked: try reader.bool(), failedAttempts: try reader.int(),
            retryAfter: try reader.optional { (reader) throws(EngineError) in try reader.date() },
            eraseAfter: try reader.optional { (reader) throws(EngineError) in try reader.int() },
            lockEpoch: UInt64(bitPattern: try reader.int64()))
    }
}

extension VerificationReport {
    func write(to writer: inout WireWriter) {
        writer.int(itemCount)
        writer.int(changeCount)
        writer.list(damagedItems) { writer, damaged in
            writer.optional(damaged.persistentReference) { $1.write(to: &$0) }
            writer.optional(damaged.rowID) { $0.int64($1) }
            writer.string(damaged.problem)
        }
        writer.list(problems) { $0.string($1) }
        writer.int(lockedItemCount)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init()
        itemCount = try reader.int()
        changeCount = try reader.int()
        damagedItems = try reader.list(minimumSize: 6) { (reader) throws(EngineError) in
            DamagedItem(
                persistentReference: try reader.optional { (reader) throws(EngineError) in
                    try PersistentReference(wire: &reader)
                },
                rowID: try reader.optional { (reader) throws(EngineError) in try reader.int64() },
                problem: try reader.string())
        }
        problems = try reader.list(minimumSize: 4) { (reader) throws(EngineError) in try reader.string() }
        lockedItemCount = try reader.int()
    }
}

extension ItemChange {
    func write(to writer: inout WireWriter) {
        writer.int64(sequence)
        writer.raw(kind)
        persistentReference.write(to: &writer)
        writer.optional(accessGroup) { $0.string($1) }
        writer.raw(protectionClass)
        writer.bool(isSynchronizable)
        writer.date(modificationDate)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            sequence: try reader.int64(), kind: try reader.raw(Kind.self),
            persistentReference: try PersistentReference(wire: &reader),
            accessGroup: try reader.optional { (reader) throws(EngineError) in try reader.string() },
            protectionClass: try reader.raw(ProtectionClass.self), isSynchronizable: try reader.bool(),
            modificationDate: try reader.date())
    }
}

extension ChangeBatch {
    func write(to writer: inout WireWriter) {
        writer.list(changes) { $1.write(to: &$0) }
        writer.int64(cursor)
        writer.bool(hasMore)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            changes: try reader.list(minimumSize: 40) { (reader) throws(EngineError) in try ItemChange(wire: &reader) },
            cursor: try reader.int64(), hasMore: try reader.bool())
    }
}

extension KeyUse {
    /// The operation, the algorithm's identifier, the input, the requested size and the shared information.
    func write(to writer: inout WireWriter) {
        writer.byte(operation.rawValue)
        writer.string(algorithm)
        writer.data(input)
        writer.int(requestedSize)
        writer.data(sharedInfo)
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        let raw = try reader.byte()
        guard let operation = Operation(rawValue: raw) else {
            throw reader.malformed("a key use of operation \(raw), which is not one")
        }
        self.init(
            operation, algorithm: try reader.string(), input: try reader.data(), requestedSize: try reader.int(),
            sharedInfo: try reader.data())
    }
}

extension KeyGeneration {
    /// The type, the size, the private item and the public one when there is one.
    func write(to writer: inout WireWriter) {
        writer.int64(keyType)
        writer.int(sizeInBits)
        privateKey.write(to: &writer)
        writer.optional(publicKey) { $1.write(to: &$0) }
    }

    init(wire reader: inout WireReader) throws(EngineError) {
        self.init(
            keyType: try reader.int64(), sizeInBits: try reader.int(), privateKey: try NewItem(wire: &reader),
            publicKey: try reader.optional { (reader) throws(EngineError) in try NewItem(wire: &reader) })
    }
}
