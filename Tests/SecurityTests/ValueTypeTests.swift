import Foundation
import Security
import Testing

/// Values arrive as Swift or Foundation types; a wrong one is errSecParam naming the key (DESIGN §6).
@Suite struct ValueTypeTests {
    @Test func foundationObjectsWorkLikeSwiftValues() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let foundation = NSDictionary(dictionary: [
                kSecClass: kSecClassInternetPassword, kSecAttrServer: NSString(string: "example.com"),
                kSecAttrPort: NSNumber(value: 8080), kSecAttrIsInvisible: kCFBooleanTrue as Any,
                kSecValueData: NSData(data: bytes("pw")), kSecAttrComment: NSString(string: "from Foundation"),
            ])
            #expect(SecItemAdd(foundation, nil) == errSecSuccess)
            var result: CFTypeRef?
            let query: NSDictionary = [
                kSecClass: kSecClassInternetPassword, kSecAttrServer: "example.com", kSecAttrPort: 8080,
                kSecAttrIsInvisible: true, kSecReturnAttributes: kCFBooleanTrue as Any, kSecReturnData: true,
            ]
            #expect(SecItemCopyMatching(query, &result) == errSecSuccess)
            let item = try #require(result as? [String: Any])
            #expect(item["v_Data"] as? Data == bytes("pw"))
            #expect(item["invi"] as? Bool == true)
            #expect(item["port"] as? Int == 8080)
            #expect(item["icmt"] as? String == "from Foundation")
            #expect((result as? NSDictionary)?["srvr"] is NSString)
        }
    }

    @Test func integersAcceptNumbersBooleansAndIntegerText() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let site: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "h"]
            #expect(add(site.merging([kSecAttrPort as String: "443"]) { $1 }).status == 0)
            #expect(copy(site.merging([kSecAttrPort as String: 443]) { $1 }).status == 0)
            #expect(add(site.merging([kSecAttrPort as String: UInt16(80)]) { $1 }).status == 0)
            #expect(add(site.merging([kSecAttrCreator as String: NSNumber(value: 0x6170_706C)]) { $1 }).status == 0)
            for bad: Any in ["080", "http", 1.5, Data([1]), Date()] {
                let outcome = add(site.merging([kSecAttrPort as String: bad]) { $1 })
                #expect(outcome.status == errSecParam, "\(bad)")
                #expect(outcome.message?.contains("\"port\" must be an integer") == true)
            }
            #expect(add(site.merging([kSecAttrPort as String: -1]) { $1 }).status == errSecParam)
        }
    }

    @Test func wrongTypesNameTheKeyButNeverTheSecret() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let cases: [(String, Any)] = [
                (kSecAttrAccount as String, 12), (kSecAttrLabel as String, true),
                (kSecAttrGeneric as String, Date()), (kSecAttrCreationDate as String, "yesterday"),
                (kSecAttrIsNegative as String, "no"), (kSecAttrAccessible as String, 1),
                (kSecReturnData as String, 1), (kSecReturnAttributes as String, "true"),
                (kSecAttrAccessControl as String, "ak"), (kSecAttrAccessGroup as String, NSNull()),
            ]
            for (key, value) in cases {
                let outcome = add(password("a", [key: value]))
                #expect(outcome.status == errSecParam, "\(key)")
                #expect(outcome.message?.contains("\"\(key)\"") == true, "\(outcome.message ?? "")")
            }
            let secretText = "hunter2-secret"
            let outcome = add(password("a", [kSecValueData as String: secretText]))
            #expect(outcome.status == errSecParam)
            #expect(outcome.message?.contains("v_Data") == true)
            #expect(outcome.message?.contains(secretText) == false)
        }
    }

    @Test func accessibilityMustBeAKnownClass() throws {
        let keychain = try TestSecItemKeychain()
        keychain.run {
            let outcome = add(password("a", [kSecAttrAccessible as String: "sometimes"]))
            #expect(outcome.status == errSecParam)
            #expect(outcome.message?.contains("sometimes") == true)
        }
    }

    @Test func datesMatchExactly() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let added = try #require(
                add(password("a", [kSecReturnAttributes as String: true])).result as? [String: Any])
            let created = try #require(added["cdat"] as? Date)
            #expect(copy(password("a", [kSecAttrCreationDate as String: created])).status == errSecSuccess)
            let nsDate = NSDate(timeIntervalSinceReferenceDate: created.timeIntervalSinceReferenceDate)
            #expect(copy(password("a", [kSecAttrCreationDate as String: nsDate])).status == errSecSuccess)
            let later = created.addingTimeInterval(1)
            #expect(copy(password("a", [kSecAttrCreationDate as String: later])).status == errSecItemNotFound)
        }
    }

    /// A dictionary returned with attributes is a query again: for a copy, an update and a delete.
    @Test func returnedAttributesWorkAsAQuery() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            #expect(
                add(password("a", [kSecValueData as String: bytes("A"), kSecAttrLabel as String: "L"])).status == 0)
            #expect(add(password("b", [kSecValueData as String: bytes("B")])).status == 0)
            let returned = try #require(
                copy(password("a", [kSecReturnAttributes as String: true, kSecReturnData as String: true])).result
                    as? [String: Any])
            let again = copy(returned.merging([kSecReturnData as String: true]) { $1 })
            #expect(again.result as? Data == bytes("A"))
            #expect(update(returned, [kSecValueData as String: bytes("A2")]).status == errSecSuccess)
            let fresh = try #require(
                copy(password("a", [kSecReturnAttributes as String: true])).result as? [String: Any])
            #expect(delete(fresh).status == errSecSuccess)
            #expect(secret("a") == nil && secret("b") == "B")
        }
    }
}
