import Foundation

/// Seals items into rows and opens rows into items (DESIGN §3): a random item key per row, wrapped by its class
/// key; attributes and secret each sealed under the item key, bound to the row's identity by associated data.
///
/// Item keys pass through one scratch key in locked memory that is zeroed after every row. Not thread-safe: the
/// engine serialises access.
final class ItemSealer {
    private let scratch: SecretKey
    /// Reused between rows: the associated data being checked, and the plaintext (zeroed after every row).
    private var associatedData: [UInt8] = []
    private var plaintext: [UInt8] = []
    /// The secret's plaintext beside the metadata's, for ``openPlaintexts(_:keybag:_:)`` (zeroed after every row).
    private var secretPlaintext: [UInt8] = []
    /// Rows with a sequence at or below this may still carry an older row binding (``RowBinding``); 0 once every
    /// row has been sealed again under the current one.
    var legacyCeiling: Int64

    init(legacyCeiling: Int64) throws(EngineError) {
        scratch = try SecretKey.zeroed()
        self.legacyCeiling = legacyCeiling
    }

    /// Seals an item whose attributes are complete (group, accessibility, flag and dates included) as the version
    /// of its row with change sequence `sequence`; a tombstone keeps its attributes and has no secret.
    func seal(
        itemClass: ItemClass, attributes: ItemAttributes, data: Data, uuid: UUID, sequence: Int64,
        isTombstone: Bool = false, keybag: Keybag, access: AccessSealing? = nil
    ) throws(EngineError) -> StoredItem {
        let protectionClass = try ItemValidator.protectionClass(in: attributes) ?? .default
        let group = attributes.string(.accessGroup) ?? ""
        let synchronizable = attributes.bool(.synchronizable) ?? false
        let classKey = try keybag.key(for: protectionClass)
        let index = keybag.blindIndex
        var hashes: [AttributeKey: Data] = [:]
        for attribute in BlindIndex.indexedAttributes where itemClass.has(attribute) {
            hashes[attribute] = try index.attribute(attribute, attributes[attribute], itemClass: itemClass)
        }
        var item = StoredItem(
            uuid: uuid, itemClass: itemClass, protectionClass: protectionClass, synchronizable: synchronizable,
            groupHash: try index.group(group),
            primaryKeyHash: try index.primaryKey(
                itemClass: itemClass, accessGroup: group, synchronizable: synchronizable, attributes: attributes),
            indexHashes: hashes,
            modificationTime: (attributes[.modificationDate]?.dateValue ?? Date()).timeIntervalSince1970,
            sequence: sequence, isTombstone: isTombstone, wrappedKey: Data(), metadata: Data(), secret: nil,
            accessGroup: group)
        if !isTombstone, let terms = attributes[.searchTerms] {
            item.termHashes = try SearchTerms.terms(in: terms).map { (term) throws(EngineError) in try index.term(term)
            }
        }
        if let kept = access?.itemKey {
            scratch.storage.withUnsafeMutableBytes { target in
                kept.withUnsafeBytes { target.copyMemory(from: $0) }
            }
        } else {
            scratch.storage.fillRandom()
        }
        defer { scratch.storage.zero() }
        item.wrappedKey = try AEAD.seal(key: scratch, under: classKey, associatedData: item.keyAssociatedData)
        var sealedAttributes = attributes
        if let access {
            let (envelope, digest) = try sealEnvelope(
                access, data: data, binding: Self.accessBinding(uuid: uuid, itemClass: itemClass), itemKey: scratch)
            item.accessFlags = access.constraint.flags.rawValue
            item.secret = envelope.encoded()
            sealedAttributes[.accessControl] = Self.storedAccessValue(access.constraint, digest: digest)
        }
        item.metadata = try AEAD.seal(
            Padding.pad(AttributeCoder.encode(sealedAttributes)), key: scratch,
            associatedData: item.sealAssociatedData(UInt8(ascii: "m")))
        if !isTombstone && access == nil {
            item.secret = try AEAD.seal(
                Padding.pad(data), key: scratch, associatedData: item.sealAssociatedData(UInt8(ascii: "s")))
        }
        return item
    }

    /// Opens a row: its attributes when `attributes` is set, its secret when `data` is set. Without attributes the
    /// secret is opened anyway, since its associated data is what authenticates the row's clear columns (a
    /// tombstone's metadata, which it has instead). A row that fails authentication, or that is not its item's
    /// latest version, is a decode error naming the item; an unavailable class is the keybag's error.
    func open(
        _ item: StoredRow, keybag: Keybag, attributes: Bool, data: Bool
    ) throws(EngineError) -> (ItemAttributes?, Data?) {
        guard item.latestChange == item.sequence else {
            throw .decode(
                "the stored item \(item.persistentReference) is not its latest version (change \(item.sequence), "
                    + (item.latestChange.map { "latest \($0)" } ?? "no change record")
                    + "): an older copy was put back or the database was damaged")
        }
        let bindings = self.bindings(of: item)
        let attributes = attributes || item.isTombstone
        let classKey = try keybag.key(for: item.protectionClass)
        defer {
            scratch.storage.zero()
            Sodium.wipe(&plaintext)
        }
        do throws(EngineError) {
            item.keyAssociatedData(into: &associatedData)
            try AEAD.open(key: item.wrappedKey, under: classKey, associatedData: associatedData, into: scratch)
            var opened: ItemAttributes?
            if attributes {
                try openSealed(item.metadata, UInt8(ascii: "m"), of: item, bindings: bindings)
                opened = try AttributeCoder.decode(plaintext, range: try Padding.payload(of: plaintext))
            }
            guard data || !attributes || item.isTombstone else { return (opened, nil) }
            if item.isTombstone {
                guard item.secret == nil, !data else { throw EngineError.decode("a tombstone has no data") }
                return (opened, nil)
            }
            guard let secret = item.secret else { throw EngineError.decode("the item has no sealed data") }
            if attributes {
                associatedData[0] = UInt8(ascii: "s")  // the secret's associated data differs only in its tag
                try AEAD.open(secret, key: scratch, associatedData: associatedData, into: &plaintext)
            } else {
                try openSealed(secret, UInt8(ascii: "s"), of: item, bindings: bindings)
            }
            return (opened, data ? Data(plaintext[try Padding.payload(of: plaintext)]) : nil)
        } catch {
            throw .decode(
                "the stored item \(item.persistentReference) failed authentication: it was altered or moved (\(error.message))"
            )
        }
    }

    /// Opens a row's metadata and secret for a reader that wants their bytes alone, not an item (the backup's scan
    /// floor, ``Engine/scanPlaintexts(_:)``): `body` sees the encoded attributes and the secret in place, both
    /// zeroed once it returns. The same checks as ``open(_:keybag:attributes:data:)``: the latest version, the
    /// wrapped key, both seals under the row's binding. `nil`, with `body` not called, for a row it does not open:
    /// a tombstone, a row with access control, one that is not its item's latest version or fails authentication.
    /// Only `body`'s own errors and an unavailable class key are thrown.
    func openPlaintexts<Result>(
        _ row: StoredRow, keybag: Keybag,
        _ body: (_ attributes: UnsafeRawBufferPointer, _ data: UnsafeRawBufferPointer) throws(EngineError) -> Result
    ) throws(EngineError) -> Result? {
        guard row.latestChange == row.sequence, !row.isTombstone, row.accessFlags == 0, let secret = row.secret else {
            return nil
        }
        let bindings = self.bindings(of: row)
        let classKey = try keybag.key(for: row.protectionClass)
        defer {
            scratch.storage.zero()
            Sodium.wipe(&plaintext)
            Sodium.wipe(&secretPlaintext)
        }
        let ranges: (attributes: Range<Int>, data: Range<Int>)
        do throws(EngineError) {
            row.keyAssociatedData(into: &associatedData)
            try AEAD.open(key: row.wrappedKey, under: classKey, associatedData: associatedData, into: scratch)
            try openSealed(row.metadata, UInt8(ascii: "m"), of: row, bindings: bindings)
            associatedData[0] = UInt8(ascii: "s")  // the secret's associated data differs only in its tag
            try AEAD.open(secret, key: scratch, associatedData: associatedData, into: &secretPlaintext)
            ranges = (try Padding.payload(of: plaintext), try Padding.payload(of: secretPlaintext))
        } catch {
            return nil  // altered or moved: verification names it
        }
        var outcome: Swift.Result<Result, EngineError> = .failure(.internalError("nothing was opened"))
        plaintext.withUnsafeBytes { attributes in
            secretPlaintext.withUnsafeBytes { data in
                outcome = Swift.Result { () throws(EngineError) -> Result in
                    try body(
                        UnsafeRawBufferPointer(rebasing: attributes[ranges.attributes]),
                        UnsafeRawBufferPointer(rebasing: data[ranges.data]))
                }
            }
        }
        return try outcome.get()
    }

    /// A row sealed under an older binding, sealed again under the current one with the same item key (its
    /// version, sequence and every clear column unchanged): the new metadata and, for a row whose secret is sealed
    /// under the item key (not a tombstone, no access control: an envelope binds itself through the metadata's
    /// digest), the new secret. `nil` for a row that needs nothing, is stale, or fails every binding (damage, which
    /// verification reports). The class key must be available.
    func rebound(_ row: StoredRow, keybag: Keybag) throws(EngineError) -> (metadata: Data, secret: Data?)? {
        guard row.latestChange == row.sequence, row.sequence <= legacyCeiling else { return nil }
        let classKey = try keybag.key(for: row.protectionClass)
        defer {
            scratch.storage.zero()
            Sodium.wipe(&plaintext)
        }
        row.keyAssociatedData(into: &associatedData)
        guard
            (try? AEAD.open(key: row.wrappedKey, under: classKey, associatedData: associatedData, into: scratch))
                != nil
        else { return nil }
        for version in RowBinding.Version.allCases.reversed() {
            guard (try? openSealed(row.metadata, UInt8(ascii: "m"), of: row, bindings: [version])) != nil else {
                continue
            }
            guard version != .current else { return nil }
            let metadata = try AEAD.seal(
                plaintext, key: scratch, associatedData: sealAssociatedData(UInt8(ascii: "m"), of: row))
            guard !row.isTombstone, row.accessFlags == 0, let secret = row.secret else { return (metadata, nil) }
            guard (try? openSealed(secret, UInt8(ascii: "s"), of: row, bindings: [version])) != nil else { return nil }
            return (
                metadata,
                try AEAD.seal(plaintext, key: scratch, associatedData: sealAssociatedData(UInt8(ascii: "s"), of: row))
            )
        }
        return nil
    }

    /// A row's current binding of `tag`.
    private func sealAssociatedData(_ tag: UInt8, of row: StoredRow) -> [UInt8] {
        var bytes: [UInt8] = []
        row.sealAssociatedData(tag, .current, into: &bytes)
        return bytes
    }

    /// The bindings a row may carry, the current one first: an older one only at or below the legacy ceiling.
    func bindings(of row: StoredRow) -> [RowBinding.Version] {
        row.sequence <= legacyCeiling ? [.third, .second, .first] : [.current]
    }

    /// Opens a sealed column (`tag` `m` or `s`) with the item key in `scratch` into `plaintext`, trying `bindings` in
    /// order; leaves the binding that opened it in `associatedData`.
    func openSealed(
        _ sealed: UnsafeRawBufferPointer, _ tag: UInt8, of row: StoredRow, bindings: [RowBinding.Version]
    ) throws(EngineError) {
        var failure = EngineError.decode("a sealed value failed authentication")
        for version in bindings {
            row.sealAssociatedData(tag, version, into: &associatedData)
            do throws(EngineError) {
                return try AEAD.open(sealed, key: scratch, associatedData: associatedData, into: &plaintext)
            } catch {
                failure = error
            }
        }
        throw failure
    }
}
