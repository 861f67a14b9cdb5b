import Foundation

/// The one rule for turning values into secrets and back: `Data` is stored as is, `String` as its UTF-8 bytes, and
/// any other `Codable` value as JSON (keys sorted). It depends on the value's dynamic type, so a `String` passed
/// through generic code is stored the same as one passed directly.
enum ValueCoding {
    /// The bytes to store for a value.
    static func encode<Value: Encodable>(_ value: Value, key: String) throws(KeychainError) -> Data {
        if let data = value as? Data { return data }
        if let text = value as? String { return Data(text.utf8) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return try encoder.encode(value)
        } catch {
            throw KeychainError(.param, "the value for key \"\(key)\" (\(Value.self)) cannot be encoded: \(error)")
        }
    }

    /// The value stored bytes hold; throws ``KeychainError/decode`` when they are not a `Value`.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, key: String) throws(KeychainError)
        -> Value
    {
        if let value = data as? Value { return value }
        if Value.self == String.self {
            guard let text = String(validating: data, as: UTF8.self), let value = text as? Value else {
                throw KeychainError(.decode, "the value for key \"\(key)\" is not UTF-8 text (\(data.count) bytes)")
            }
            return value
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw KeychainError(
                .decode, "the value for key \"\(key)\" does not decode as \(Value.self): \(describe(error))")
        }
    }

    /// A decoding error in one line, naming the coding path.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
