// secitem-probe: makes one SecItem call as an ordinary process does — on the process's keychain (KEYCHAIN_HOME), as
// the caller its entitlements name (KEYCHAIN_ENTITLEMENTS, or <executable>.entitlements beside it) — and prints the
// outcome as one JSON line. The Security tests run it as two apps with different entitlements on one keychain.
//
//     secitem-probe add|copy|update|delete '<dictionary as JSON>' ['<attributesToUpdate as JSON>']
//     secitem-probe sign '<query as JSON>' <message as base64>
//     secitem-probe generate '<SecKeyCreateRandomKey parameters as JSON>'
//
// `sign` finds a key (kSecReturnRef) and signs the message with ECDSA (X9.62, SHA-256) as an app does, prints the
// outcome with the signature as its result, then waits for a line on standard input before it exits, so that a test
// can look through the process's memory while it holds the key it was given. `generate` makes a key with
// SecKeyCreateRandomKey and tries to export it: its result is the export's status (-4 when the keychain keeps it).
//
// JSON strings, numbers and Booleans become String, NSNumber and Bool; {"$data": "<base64>"} becomes Data and
// {"$date": <seconds since 2001>} a Date. The output is {"status": <OSStatus>, "message": "<why, on failure>",
// "result": <the result, encoded the same way>}. Exit status 0 unless the arguments are malformed (then 2).

import Foundation
import Security

/// Turns a JSON value into the Swift value a SecItem dictionary holds.
func decode(_ json: Any) -> Any {
    if let object = json as? [String: Any] {
        if let base64 = object["$data"] as? String, let data = Data(base64Encoded: base64) { return data }
        if let seconds = object["$date"] as? Double { return Date(timeIntervalSinceReferenceDate: seconds) }
        return object.mapValues(decode)
    }
    if let array = json as? [Any] { return array.map(decode) }
    return json
}

/// Turns a result object into JSON.
func encode(_ value: Any?) -> Any {
    switch value {
    case nil: return NSNull()
    case let data as Data: return ["$data": data.base64EncodedString()]
    case let date as Date: return ["$date": date.timeIntervalSinceReferenceDate]
    case let dictionary as [String: Any]: return dictionary.mapValues(encode)
    case let array as [Any]: return array.map(encode)
    case let some?: return some
    }
}

func dictionary(_ text: String) -> CFDictionary? {
    guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
        let object = decode(json) as? [String: Any]
    else { return nil }
    return object as CFDictionary
}

func probe(_ arguments: [String]) -> Int32 {
    guard arguments.count >= 3, let query = dictionary(arguments[2]) else {
        FileHandle.standardError.write(Data("usage: secitem-probe add|copy|update|delete '<json>' ['<json>']\n".utf8))
        return 2
    }
    var result: CFTypeRef?
    let status: OSStatus
    var key: SecKey?
    switch arguments[1] {
    case "generate":
        var error: Unmanaged<CFError>?
        guard let made = SecKeyCreateRandomKey(query, &error) else {
            status = OSStatus((error?.takeRetainedValue() as Error? as NSError?)?.code ?? Int(errSecParam))
            break
        }
        status = errSecSuccess
        let exported = SecKeyCopyExternalRepresentation(made, &error)
        let code = exported == nil ? (error?.takeRetainedValue() as Error? as NSError?)?.code ?? -1 : 0
        result = NSNumber(value: code)
    case "sign":
        guard arguments.count == 4, let message = Data(base64Encoded: arguments[3]) else { return 2 }
        (status, result, key) = sign(message, withKeyFoundBy: query)
    case "add": status = SecItemAdd(query, &result)
    case "copy": status = SecItemCopyMatching(query, &result)
    case "delete": status = SecItemDelete(query)
    case "update":
        guard arguments.count == 4, let changes = dictionary(arguments[3]) else { return 2 }
        status = SecItemUpdate(query, changes)
    default: return 2
    }
    let output: [String: Any] = [
        "status": Int(status),
        "message": SecCopyLastErrorMessage().map { $0 as String } ?? "",
        "result": encode(result),
    ]
    guard let data = try? JSONSerialization.data(withJSONObject: output, options: [.sortedKeys]) else { return 2 }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
    if arguments[1] == "sign" {
        // Holds the key while the test looks.
        _ = readLine()
        withExtendedLifetime(key) {}
    }
    return 0
}

/// Finds the key `query` names and signs `message` with it: the status, the signature, the key.
func sign(_ message: Data, withKeyFoundBy query: CFDictionary) -> (OSStatus, CFTypeRef?, SecKey?) {
    var found: CFTypeRef?
    let status = SecItemCopyMatching(query, &found)
    guard status == errSecSuccess, let key = found as? SecKey else {
        return (status == errSecSuccess ? errSecParam : status, nil, nil)
    }
    var error: Unmanaged<CFError>?
    guard let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
    else {
        return (OSStatus((error?.takeRetainedValue() as Error? as NSError?)?.code ?? Int(errSecParam)), nil, key)
    }
    return (errSecSuccess, signature, key)
}

exit(probe(CommandLine.arguments))
