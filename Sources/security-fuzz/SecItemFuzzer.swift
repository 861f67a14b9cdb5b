// security-fuzz: a libFuzzer target for the four SecItem functions (`make fuzz-security`).
//
// Each input is a short program: up to 12 operations, each an add, copy, update or delete with a dictionary decoded
// from the bytes (known keys and random ones; Bool, NSNumber, String, Data, Date, array, null, SecAccessControl and
// nested dictionary values), or a lock, unlock or passcode change. Every input runs on a fresh in-memory keychain, so
// a crash replays from its input alone. After every call the harness checks what must always hold, and traps when it
// does not (that trap is the finding): a status from the set SecItem returns, no result on failure, a detailed
// message exactly when the call failed, no secret text in a message, and an added secret readable at once.
//
// This file is the whole target on purpose: with `--sanitize=fuzzer` libFuzzer supplies `main`, so the target has
// no main.swift, and a single file is compiled as the main file (doing nothing) in an ordinary build.

import Foundation
import KeychainCore
import Security

/// The statuses the SecItem functions may return on an in-memory keychain; anything else is a bug.
private let expectedStatuses: Set<OSStatus> = [
    errSecSuccess, errSecUnimplemented, errSecParam, errSecAuthFailed, errSecDuplicateItem, errSecItemNotFound,
    errSecDataTooLarge, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecMissingEntitlement,
]

/// Text that stands for a secret: it must never appear in an error message.
private let secretMarker = "S3CR3T-MARKER"

private let knownKeys: [String] = [
    "class", "class", "class", "acct", "acct", "svce", "svce", "v_Data", "v_Data", "agrp", "pdmn", "sync", "labl",
    "desc", "icmt", "crtr", "type", "invi", "nega", "gena", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "cdat",
    "mdat", "accc", "nleg", "musr", "tomb", "persistref", "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref",
    "m_Limit", "m_CaseInsensitive", "m_Policy", "v_PersistentRef", "v_Ref", "u_AuthUI", "u_AuthCtx", "u_OpPrompt",
    "u_NoAuthUI", "u_Other", "r_Other",
]

private let knownStrings: [String] = [
    "genp", "inet", "keys", "cert", "zzzz", "ak", "ck", "dk", "aku", "cku", "dku", "akpu", "m_LimitOne",
    "m_LimitAll", "syna", "u_AuthUIA", "u_AuthUIF", "u_AuthUIS", "htps", "ftp ", "form", "a", "b", "A", "",
    "group.shared", "TEAM.app.one", "TEAM.app.two", "*", "443", "-1",
]

private let keyAlphabet = Array("acdegilmnprstuvy_ARDLP".utf8)

/// Reads the fuzzer's bytes as a stream of choices; once they run out every choice is zero.
private struct Choices {
    let bytes: [UInt8]
    var position = 0

    mutating func next() -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func bytes(upTo limit: Int) -> [UInt8] {
        (0..<(next() % (limit + 1))).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}

/// One input's state: its keychain, the persistent references returned so far, and the passcode.
private final class Session {
    let engine: Engine
    let callers = [
        Caller(applicationIdentifier: "TEAM.app.one", accessGroups: ["TEAM.app.one", "group.shared"]),
        Caller(applicationIdentifier: "TEAM.app.two", accessGroups: ["TEAM.app.two", "group.shared"]),
        Caller.administrator(defaultGroup: "TEAM.admin"),
    ]
    var references: [Data] = []
    var choices: Choices

    init(_ bytes: [UInt8]) throws {
        engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
        choices = Choices(bytes: bytes)
    }

    func run() {
        for _ in 0..<12 where choices.position < choices.bytes.count {
            let caller = callers[choices.next() % callers.count]
            SecItemKeychain(backend: engine, caller: caller).run { step(caller) }
        }
    }

    private func step(_ caller: Caller) {
        switch choices.next() % 10 {
        case 0, 1: add(caller)
        case 2, 3: check(SecItemCopyMatching(dictionary(), nil), nil)
        case 4, 5: copyWithResult()
        case 6: check(SecItemUpdate(dictionary(), dictionary()), nil)
        case 7: check(SecItemDelete(dictionary()), nil)
        case 8: engine.lock()
        default:
            let passcode = ["0000", "1234"][choices.next() % 2]
            switch choices.next() % 3 {
            case 0: try? engine.unlock(passcode: passcode)
            case 1: try? engine.setPasscode(passcode, current: nil)
            default: try? engine.removePasscode(current: passcode)
            }
        }
    }

    private func add(_ caller: Caller) {
        let attributes = dictionary()
        var result: CFTypeRef?
        let status = SecItemAdd(attributes, &result)
        check(status, result)
        // The secret just added is readable at once by the caller that added it (checked while unlocked, when a
        // search over every item of the class cannot meet a locked one).
        guard status == errSecSuccess, (try? engine.keybagStatus())?.isLocked == false else { return }
        let secret = attributes["v_Data"] as? Data ?? Data()
        let itemClass = ItemClass(rawValue: attributes["class"] as? String ?? "") ?? .genericPassword
        let stored = try? engine.copyMatching(
            ItemQuery(itemClass: itemClass, synchronizable: .any, limit: .all, returning: .data), for: caller)
        precondition(stored?.contains { $0.data == secret } == true, "an added secret cannot be read back")
    }

    private func copyWithResult() {
        var result: CFTypeRef? = NSString(string: "stale")
        let status = SecItemCopyMatching(dictionary(), &result)
        check(status, result)
        if let array = result as? [Any] { precondition(!array.isEmpty, "a copy returned an empty array") }
        let objects: [Any] = (result as? [Any]) ?? result.map({ [$0] }) ?? []
        for object in objects {
            precondition(object is Data || object is [String: Any], "a result of unexpected type \(type(of: object))")
            if let reference = (object as? [String: Any])?["v_PersistentRef"] as? Data { references.append(reference) }
            if let data = object as? Data, data.count == 20 { references.append(data) }
        }
    }

    private func check(_ status: OSStatus, _ result: CFTypeRef?) {
        let message = SecCopyLastErrorMessage().map { $0 as String }
        precondition(expectedStatuses.contains(status), "unexpected status \(status): \(message ?? "no message")")
        if status == errSecSuccess {
            precondition(message == nil, "a success left an error message")
        } else {
            precondition(result == nil, "a failure returned a result")
            precondition(message?.isEmpty == false, "a failure (\(status)) gave no reason")
            precondition(message?.contains(secretMarker) == false, "a message shows a secret: \(message ?? "")")
        }
    }

    // MARK: Decoding dictionaries

    private func dictionary(depth: Int = 0) -> NSDictionary {
        var entries: [String: Any] = [:]
        for _ in 0..<(choices.next() % 9) {
            let key = key()
            // A secret (as data, or wrongly as text) is only ever the value of kSecValueData.
            if key == "v_Data", choices.next() % 4 == 0 {
                entries[key] = choices.next() % 2 == 0 ? secretMarker : Data(secretMarker.utf8)
            } else {
                entries[key] = value(depth: depth)
            }
        }
        return entries as NSDictionary
    }

    private func key() -> String {
        let choice = choices.next()
        if choice < 224 { return knownKeys[choice % knownKeys.count] }
        let characters = (0..<(choices.next() % 7)).map { _ in keyAlphabet[choices.next() % keyAlphabet.count] }
        return String(decoding: characters, as: UTF8.self)
    }

    private func value(depth: Int) -> Any {
        switch choices.next() % 12 {
        case 0, 1: return choices.next() % 2 == 1
        case 2: return NSNumber(value: Int16(truncatingIfNeeded: choices.next() << 8 | choices.next()))
        case 3, 4: return knownStrings[choices.next() % knownStrings.count]
        case 5: return String(decoding: choices.bytes(upTo: 12), as: UTF8.self)
        case 6:
            if !references.isEmpty, choices.next() % 2 == 0 { return references[choices.next() % references.count] }
            return Data(choices.bytes(upTo: 24))
        case 7, 8: return Date(timeIntervalSinceReferenceDate: Double(choices.next() * 1_000_000))
        case 9: return depth < 2 ? (0..<(choices.next() % 3)).map { _ in value(depth: depth + 1) } : NSNull()
        case 10:
            let protection = knownStrings[choices.next() % knownStrings.count] as CFString
            let flags = SecAccessControlCreateFlags(rawValue: UInt(choices.next() % 4) << (choices.next() % 32))
            return SecAccessControlCreateWithFlags(nil, protection, flags, nil) ?? NSNull()
        default: return depth < 2 ? dictionary(depth: depth + 1) : NSNull()
        }
    }
}

/// libFuzzer's entry point: runs one input's program on a fresh keychain.
@_cdecl("LLVMFuzzerTestOneInput")
public func securityFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let session = try? Session(bytes) else {
        preconditionFailure("an in-memory keychain could not be opened")
    }
    session.run()
    return 0
}
