import Foundation
import Security

// Runs each wrapper as its own test suite would and prints `ok <check>` or `FAIL <check>`; exits 1 if any failed.
// The keychain is the process's own: `$KEYCHAIN_HOME`, which the test points at a temporary directory.

var failures = 0

func check(_ name: String, _ passed: Bool) {
    print(passed ? "ok \(name)" : "FAIL \(name)")
    if !passed { failures += 1 }
}

let service = defaultServiceName()

// Data accounts and a Data generic attribute.
let wrapper = DataAccountKeychain(serviceName: service)
check("data-account set", wrapper.set("v1", forKey: "token"))
check("data-account get", wrapper.string(forKey: "token") == "v1")
check("data-account set again updates", wrapper.set("v2", forKey: "token") && wrapper.string(forKey: "token") == "v2")
wrapper.set("other", forKey: "second")
check("data-account allKeys", wrapper.allKeys() == ["token", "second"])
let stringQuery: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
    kSecAttrAccount as String: "token", kSecReturnData as String: true,
]
var found: CFTypeRef?
check(
    "string account finds data account",
    SecItemCopyMatching(stringQuery as CFDictionary, &found) == errSecSuccess && found as? Data == Data("v2".utf8))
check("data-account remove", wrapper.removeObject(forKey: "token") && wrapper.string(forKey: "token") == nil)
check("data-account removeAll", wrapper.removeAllKeys() && wrapper.allKeys().isEmpty)

// kSecReturnRef, synchronizable this-device-only items, kSecMatchLimitAll in a delete.
let fluent = FluentKeychain(service: service + ".fluent")
check("fluent set", fluent.set("secret", key: "alice") == errSecSuccess)
let synced = fluent.synchronizable(true).accessibility(kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
check("fluent synchronizable this-device-only set", synced.set("device", key: "bob") == errSecSuccess)
check("fluent get", fluent.get("alice") == "secret" && fluent.get("bob") == "device")
let attributes = fluent.attributes("bob")
check("fluent attributes data", attributes?[kSecValueData as String] as? Data == Data("device".utf8))
check("fluent attributes account", attributes?[kSecAttrAccount as String] as? String == "bob")
check("fluent attributes class", attributes?[kSecClass as String] as? String == kSecClassGenericPassword as String)
check("fluent attributes synchronizable", attributes?[kSecAttrSynchronizable as String] as? Bool == true)
check("fluent attributes persistent ref", attributes?[kSecValuePersistentRef as String] is Data)
let references = fluent.references()
check(
    "fluent references",
    references.count == 2
        && references.allSatisfy { $0[kSecClass as String] != nil && $0[kSecValueData as String] is Data })
check("fluent allKeys", fluent.allKeys() == ["alice", "bob"])
check("fluent removeAll", fluent.removeAll() == errSecSuccess && fluent.allKeys().isEmpty)

// [String: AnyHashable] queries with an access control, noErr, items without data.
var hashable = HashableQueryKeychain(service: service + ".hashable")
check("hashable set", hashable.set(Data("x".utf8), forKey: "k") && hashable.data(forKey: "k") == Data("x".utf8))
check("hashable set without data", hashable.set(nil, forKey: "marker") && hashable.lastResultCode == noErr)
check("hashable data of item without data", hashable.data(forKey: "marker") == Data())
let marker = hashable.item(forKey: "marker")
check("hashable item without data", marker != nil && marker?[kSecValueData as String] == nil)
check("hashable item account", marker?[kSecAttrAccount as String] as? String == "marker")

// CoreFoundation's error functions, SecRandomCopyBytes.
let error = accessControlError()
check("cferror code", error?.code == CFIndex(errSecParam))
check("cferror domain", error?.domain == kCFErrorDomainOSStatus as String)
check("cferror description", error?.description.contains("sometimes") == true)
check("cferror user info", error?.userInfo[kCFErrorLocalizedDescriptionKey as String] is String)
let key = randomKey()
check("random bytes", key?.count == 32 && key != randomKey() && key != Data(count: 32))

// RSA from PEM by tag, the legacy SecKeyEncrypt; a permanent EC key found again by its tag.
var keyError: Unmanaged<CFError>?
let rsaParameters: [String: Any] = [
    kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
]
let rsaPrivate = SecKeyCreateRandomKey(rsaParameters as CFDictionary, &keyError)
let rsaPEM = rsaPrivate.flatMap(SecKeyCopyPublicKey).flatMap { RSAKeyStore.pem(publicKey: $0) }
check("key pem made", rsaPEM?.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
let storedPublic = rsaPEM.flatMap { RSAKeyStore.addPublicKey(pem: $0, tag: "com.example.server") }
check("key stored by tag", storedPublic != nil && storedPublic == rsaPrivate.flatMap(SecKeyCopyPublicKey))
let sealedMessage = storedPublic.flatMap { RSAKeyStore.encrypt(Data("hello".utf8), with: $0) }
check("key legacy encrypt", sealedMessage?.count == 256)
check(
    "key legacy decrypt",
    rsaPrivate.flatMap { key in sealedMessage.flatMap { RSAKeyStore.decrypt($0, with: key) } } == Data("hello".utf8))
let signing = SigningKeyStore.signingKey(tag: "com.example.signing")
let signingAgain = SigningKeyStore.signingKey(tag: "com.example.signing")
check("key permanent found again", signing != nil && signing == signingAgain)
let signed = signing.flatMap {
    SecKeyCreateSignature($0, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, &keyError)
}
let verifies = signing.flatMap(SecKeyCopyPublicKey).flatMap { publicKey in
    signed.map {
        SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, $0, &keyError)
    }
}
check("key signature verifies", verifies == true)

print(failures == 0 ? "all passed" : "\(failures) failed")
exit(failures == 0 ? 0 : 1)
