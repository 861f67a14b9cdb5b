import Foundation
import Security
import Testing

/// The kSec constants carry Apple's raw values, so dictionaries built here mean what they mean on Apple's platforms.
@Suite struct ConstantTests {
    @Test func classesAndAttributes() {
        let expected: [(CFString, String)] = [
            (kSecClass, "class"), (kSecClassGenericPassword, "genp"), (kSecClassInternetPassword, "inet"),
            (kSecClassCertificate, "cert"), (kSecClassKey, "keys"), (kSecClassIdentity, "idnt"),
            (kSecAttrAccessible, "pdmn"), (kSecAttrAccessControl, "accc"), (kSecAttrAccessGroup, "agrp"),
            (kSecAttrSynchronizable, "sync"), (kSecAttrSynchronizableAny, "syna"), (kSecAttrCreationDate, "cdat"),
            (kSecAttrModificationDate, "mdat"), (kSecAttrDescription, "desc"), (kSecAttrComment, "icmt"),
            (kSecAttrCreator, "crtr"), (kSecAttrType, "type"), (kSecAttrLabel, "labl"), (kSecAttrIsInvisible, "invi"),
            (kSecAttrIsNegative, "nega"), (kSecAttrAccount, "acct"), (kSecAttrService, "svce"),
            (kSecAttrGeneric, "gena"), (kSecAttrSecurityDomain, "sdmn"), (kSecAttrServer, "srvr"),
            (kSecAttrProtocol, "ptcl"), (kSecAttrAuthenticationType, "atyp"), (kSecAttrPort, "port"),
            (kSecAttrPath, "path"), (kSecAttrPersistentReference, "persistref"),
        ]
        for (constant, raw) in expected { #expect(constant as String == raw) }
    }

    @Test func accessibilityProtocolsAndAuthenticationTypes() {
        let expected: [(CFString, String)] = [
            (kSecAttrAccessibleWhenUnlocked, "ak"), (kSecAttrAccessibleAfterFirstUnlock, "ck"),
            (kSecAttrAccessibleAlways, "dk"), (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"),
            (kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku"),
            (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku"), (kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
            (kSecAttrProtocolFTP, "ftp "), (kSecAttrProtocolHTTP, "http"), (kSecAttrProtocolHTTPS, "htps"),
            (kSecAttrProtocolSOCKS, "sox "), (kSecAttrProtocolSSH, "ssh "), (kSecAttrProtocolIMAPS, "imps"),
            (kSecAttrProtocolPOP3S, "pops"), (kSecAttrProtocolHTTPSProxy, "htsx"), (kSecAttrProtocolSMB, "smb "),
            (kSecAttrAuthenticationTypeNTLM, "ntlm"), (kSecAttrAuthenticationTypeMSN, "msna"),
            (kSecAttrAuthenticationTypeDPA, "dpaa"), (kSecAttrAuthenticationTypeRPA, "rpaa"),
            (kSecAttrAuthenticationTypeHTTPBasic, "http"), (kSecAttrAuthenticationTypeHTTPDigest, "httd"),
            (kSecAttrAuthenticationTypeHTMLForm, "form"), (kSecAttrAuthenticationTypeDefault, "dflt"),
        ]
        for (constant, raw) in expected { #expect(constant as String == raw) }
    }

    @Test func searchReturnValueAndUseKeys() {
        let expected: [(CFString, String)] = [
            (kSecMatchLimit, "m_Limit"), (kSecMatchLimitOne, "m_LimitOne"), (kSecMatchLimitAll, "m_LimitAll"),
            (kSecMatchCaseInsensitive, "m_CaseInsensitive"), (kSecReturnData, "r_Data"),
            (kSecReturnAttributes, "r_Attributes"), (kSecReturnRef, "r_Ref"),
            (kSecReturnPersistentRef, "r_PersistentRef"), (kSecValueData, "v_Data"), (kSecValueRef, "v_Ref"),
            (kSecValuePersistentRef, "v_PersistentRef"), (kSecUseAuthenticationUI, "u_AuthUI"),
            (kSecUseAuthenticationUIAllow, "u_AuthUIA"), (kSecUseAuthenticationUIFail, "u_AuthUIF"),
            (kSecUseAuthenticationUISkip, "u_AuthUIS"), (kSecUseAuthenticationContext, "u_AuthCtx"),
            (kSecUseOperationPrompt, "u_OpPrompt"), (kSecUseNoAuthenticationUI, "u_NoAuthUI"),
            (kSecUseDataProtectionKeychain, "nleg"),
        ]
        for (constant, raw) in expected { #expect(constant as String == raw) }
    }

    @Test func coreFoundationNamesBridgeAsOnApplePlatforms() throws {
        let keychain = try TestSecItemKeychain()
        try keychain.run {
            let cfKeyed: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrAccount: "cf", kSecValueData: bytes("v"),
            ]
            #expect(SecItemAdd(cfKeyed as CFDictionary, nil) == errSecSuccess)
            var item: CFTypeRef?
            let query: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword, kSecAttrAccount: "cf", kSecReturnData: kCFBooleanTrue!,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess)
            let data = try #require(item as? Data)
            #expect(data == bytes("v"))
            let message: CFString? = SecCopyErrorMessageString(errSecItemNotFound, nil)
            #expect((message as String?)?.isEmpty == false)
        }
    }
}
