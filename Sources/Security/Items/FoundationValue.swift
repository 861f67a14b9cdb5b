import Foundation
import KeychainCore

/// Converts the values of a SecItem dictionary, which arrive as Swift or Foundation types (`Bool` or `NSNumber`,
/// `String` or `NSString`, …), to the engine's typed values, and stored values back to Foundation objects.
///
/// A value of the wrong type is `errSecParam`, and the message names the key, the type expected and the type found.
enum FoundationValue {
    /// A Boolean: a Swift `Bool` or an `NSNumber` made from one (`kCFBooleanTrue`), as Apple requires of `kSecReturn…`
    /// keys; `nil` for anything else, including the number 1.
    static func boolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
        return number.boolValue
    }

    /// A flag attribute's value: a Boolean, or the number 0 or 1 (Apple stores flags as numbers and returns them so).
    static func flag(_ value: Any) -> Bool? {
        if let flag = boolean(value) { return flag }
        guard let number = integer(value), number == 0 || number == 1 else { return nil }
        return number == 1
    }

    /// A whole number: an integer `NSNumber` (or Bool, as 0 or 1), or text that reads back as the same integer.
    static func integer(_ value: Any) -> Int64? {
        if let number = value as? NSNumber {
            let double = number.doubleValue
            guard double.isFinite, double.rounded() == double, abs(double) < 0x1p63 else { return nil }
            return number.int64Value
        }
        if let text = value as? String, let number = Int64(text), String(number) == text { return number }
        return nil
    }

    /// Checks that a value is a Boolean.
    static func requireBoolean(_ value: Any, for key: String) throws(EngineError) -> Bool {
        guard let flag = boolean(value) else { throw wrongType(key, expected: "a Boolean", value) }
        return flag
    }

    /// Checks that a value is text.
    static func requireString(_ value: Any, for key: String) throws(EngineError) -> String {
        guard let text = value as? String else { throw wrongType(key, expected: "a string", value) }
        return text
    }

    /// Checks that a value is data.
    static func requireData(_ value: Any, for key: String) throws(EngineError) -> Data {
        guard let data = value as? Data else { throw wrongType(key, expected: "data", value) }
        return data
    }

    /// Converts an attribute's value to the attribute's type.
    ///
    /// Apple's blob attributes (`acct`, `svce`, `gena`, `labl`, …) take text or data and keep what they were given
    /// (`copyBlob` in Apple's `SecDbItem.c`), so an item added with a `Data` account returns a `Data` account; the
    /// engine compares the two as bytes.
    static func attributeValue(_ value: Any, for attribute: AttributeKey) throws(EngineError) -> AttributeValue {
        let key = attribute.rawValue
        if attribute.holdsTextOrBytes {
            if let text = value as? String { return .string(text) }
            if let data = value as? Data { return .data(data) }
            throw wrongType(key, expected: "a string or data", value)
        }
        switch attribute.valueType {
        case .string: return .string(try requireString(value, for: key))
        case .data: return .data(try requireData(value, for: key))
        case .integer:
            guard let number = integer(value) else { throw wrongType(key, expected: "an integer", value) }
            return .integer(number)
        case .bool:
            guard let flag = flag(value) else { throw wrongType(key, expected: "a Boolean (or 0 or 1)", value) }
            return .bool(flag)
        case .date:
            guard let date = value as? Date else { throw wrongType(key, expected: "a date", value) }
            return .date(date)
        }
    }

    /// A stored value as the Foundation object Apple returns: text, data, number or date. Flags come back as the
    /// numbers 0 and 1, as Apple's do, so both `as? Bool` and `as? Int` read them.
    static func object(_ value: AttributeValue) -> AnyObject {
        switch value {
        case .string(let text): NSString(string: text)
        case .data(let data): NSData(data: data)
        case .integer(let number): NSNumber(value: number)
        case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case .bool(let flag): NSNumber(value: flag ? 1 : 0)
        }
    }

    /// The `errSecParam` error for a value of the wrong type.
    static func wrongType(_ key: String, expected: String, _ value: Any) -> EngineError {
        EngineError(.param, "the value of \"\(key)\" must be \(expected), not \(describe(value))")
    }

    /// A short description of a value's type (numbers with their value), never its text or bytes: a wrongly typed
    /// `kSecValueData` may be a secret.
    static func describe(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let data as Data: return "data (\(data.count) bytes)"
        case let text as String: return "a string (\(text.count) characters)"
        case let number as NSNumber:
            return boolean(number).map { "the Boolean \($0)" } ?? "the number \(number)"
        case is Date: return "a date"
        default: return "a value of type \(type(of: value))"
        }
    }
}
