/// The rules ``SyncStore`` names and list prefixes follow, checked in one place by every store.
enum SyncStoreName {
    /// The longest name, in bytes.
    static let maximumLength = 255

    /// Throws ``SyncStoreError/Kind/invalidName``, naming `name`, unless it is a valid record name: `/`-separated
    /// segments of lowercase letters, digits, `-`, `_` and `.`, none empty, `.` or `..`, at most 255 bytes.
    static func validate(_ name: String) throws(SyncStoreError) {
        guard !name.isEmpty else { throw SyncStoreError(.invalidName, "a record name cannot be empty") }
        try validateCharacters(name, as: "record name")
        guard !name.hasPrefix("/"), !name.hasSuffix("/") else {
            throw SyncStoreError(.invalidName, "the record name \(quoted(name)) starts or ends with /")
        }
        for segment in name.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !segment.isEmpty else {
                throw SyncStoreError(.invalidName, "the record name \(quoted(name)) has an empty segment")
            }
            guard !segment.elementsEqual(".".utf8), !segment.elementsEqual("..".utf8) else {
                throw SyncStoreError(.invalidName, "the record name \(quoted(name)) has a segment . or ..")
            }
        }
    }

    /// Throws ``SyncStoreError/Kind/invalidName``, naming `prefix`, unless it is a valid list prefix: the start of
    /// a possible record name (only the name's characters, at most 255 bytes; it may end with `/` or mid-segment).
    static func validatePrefix(_ prefix: String) throws(SyncStoreError) {
        try validateCharacters(prefix, as: "list prefix")
    }

    /// Whether `byte` may appear in a segment.
    static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
            UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// Whether `segment` is a valid single segment (no `/`).
    static func isSegment<Bytes: Collection<UInt8>>(_ segment: Bytes) -> Bool {
        !segment.isEmpty && segment.count <= maximumLength && segment.allSatisfy(isSegmentByte)
            && !segment.elementsEqual(".".utf8) && !segment.elementsEqual("..".utf8)
    }

    /// `text` quoted for a message: printable ASCII as it is (`"` and `\\` escaped), anything else as `\u{…}`
    /// (a name may be any string, control characters included).
    static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.count > 300 ? String(text.unicodeScalars.prefix(300)) + "…" : text
        return "\"" + shown.unicodeScalars.map(shownScalar).joined() + "\""
    }

    private static func shownScalar(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\"", "\\": "\\" + String(scalar)
        case " "..."~": String(scalar)
        default: "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    private static func validateCharacters(_ text: String, as what: String) throws(SyncStoreError) {
        guard text.utf8.count <= maximumLength else {
            throw SyncStoreError(
                .invalidName, "the \(what) \(quoted(text)) is \(text.utf8.count) bytes long (at most \(maximumLength))")
        }
        if let bad = text.utf8.first(where: { !isSegmentByte($0) && $0 != UInt8(ascii: "/") }) {
            let character = bad < 0x80 ? quoted(String(Unicode.Scalar(bad))) : "a non-ASCII character"
            throw SyncStoreError(
                .invalidName,
                "the \(what) \(quoted(text)) holds \(character): only a-z, 0-9, -, _, . and / are allowed")
        }
    }
}
