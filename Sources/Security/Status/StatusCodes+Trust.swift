// Apple's OSStatus values and messages for the certificate, trust and revocation status codes,
// in the order of Apple's SecBase.h. Each message is the header comment Apple builds SecErrorMessages.strings from.

/// `-67585`: The required service is not available.
public let errSecServiceNotAvailable: OSStatus = -67585
/// `-67586`: The client ID is not correct.
public let errSecInsufficientClientID: OSStatus = -67586
/// `-67587`: A device reset has occurred.
public let errSecDeviceReset: OSStatus = -67587
/// `-67588`: A device failure has occurred.
public let errSecDeviceFailed: OSStatus = -67588
/// `-67589`: Adding an application ACL subject failed.
public let errSecAppleAddAppACLSubject: OSStatus = -67589
/// `-67590`: The public key is incomplete.
public let errSecApplePublicKeyIncomplete: OSStatus = -67590
/// `-67591`: A signature mismatch has occurred.
public let errSecAppleSignatureMismatch: OSStatus = -67591
/// `-67592`: The specified key has an invalid start date.
public let errSecAppleInvalidKeyStartDate: OSStatus = -67592
/// `-67593`: The specified key has an invalid end date.
public let errSecAppleInvalidKeyEndDate: OSStatus = -67593
/// `-67594`: A conversion error has occurred.
public let errSecConversionError: OSStatus = -67594
/// `-67595`: A SSLv2 rollback error has occurred.
public let errSecAppleSSLv2Rollback: OSStatus = -67595
/// `-67596`: The quota was exceeded.
public let errSecQuotaExceeded: OSStatus = -67596
/// `-67597`: The file is too big.
public let errSecFileTooBig: OSStatus = -67597
/// `-67598`: The specified database has an invalid blob.
public let errSecInvalidDatabaseBlob: OSStatus = -67598
/// `-67599`: The specified database has an invalid key blob.
public let errSecInvalidKeyBlob: OSStatus = -67599
/// `-67600`: The specified database has an incompatible blob.
public let errSecIncompatibleDatabaseBlob: OSStatus = -67600
/// `-67601`: The specified database has an incompatible key blob.
public let errSecIncompatibleKeyBlob: OSStatus = -67601
/// `-67602`: A host name mismatch has occurred.
public let errSecHostNameMismatch: OSStatus = -67602
/// `-67603`: There is an unknown critical extension flag.
public let errSecUnknownCriticalExtensionFlag: OSStatus = -67603
/// `-67604`: No basic constraints were found.
public let errSecNoBasicConstraints: OSStatus = -67604
/// `-67605`: No basic CA constraints were found.
public let errSecNoBasicConstraintsCA: OSStatus = -67605
/// `-67606`: The authority key ID is not valid.
public let errSecInvalidAuthorityKeyID: OSStatus = -67606
/// `-67607`: The subject key ID is not valid.
public let errSecInvalidSubjectKeyID: OSStatus = -67607
/// `-67608`: The key usage is not valid for the specified policy.
public let errSecInvalidKeyUsageForPolicy: OSStatus = -67608
/// `-67609`: The extended key usage is not valid.
public let errSecInvalidExtendedKeyUsage: OSStatus = -67609
/// `-67610`: The ID linkage is not valid.
public let errSecInvalidIDLinkage: OSStatus = -67610
/// `-67611`: The path length constraint was exceeded.
public let errSecPathLengthConstraintExceeded: OSStatus = -67611
/// `-67612`: The root or anchor certificate is not valid.
public let errSecInvalidRoot: OSStatus = -67612
/// `-67613`: The CRL has expired.
public let errSecCRLExpired: OSStatus = -67613
/// `-67614`: The CRL is not yet valid.
public let errSecCRLNotValidYet: OSStatus = -67614
/// `-67615`: The CRL was not found.
public let errSecCRLNotFound: OSStatus = -67615
/// `-67616`: The CRL server is down.
public let errSecCRLServerDown: OSStatus = -67616
/// `-67617`: The CRL has a bad Uniform Resource Identifier.
public let errSecCRLBadURI: OSStatus = -67617
/// `-67618`: An unknown certificate extension was encountered.
public let errSecUnknownCertExtension: OSStatus = -67618
/// `-67619`: An unknown CRL extension was encountered.
public let errSecUnknownCRLExtension: OSStatus = -67619
/// `-67620`: The CRL is not trusted.
public let errSecCRLNotTrusted: OSStatus = -67620
/// `-67621`: The CRL policy failed.
public let errSecCRLPolicyFailed: OSStatus = -67621
/// `-67622`: The issuing distribution point was not valid.
public let errSecIDPFailure: OSStatus = -67622
/// `-67623`: An email address mismatch was encountered.
public let errSecSMIMEEmailAddressesNotFound: OSStatus = -67623
/// `-67624`: The appropriate extended key usage for SMIME was not found.
public let errSecSMIMEBadExtendedKeyUsage: OSStatus = -67624
/// `-67625`: The key usage is not compatible with SMIME.
public let errSecSMIMEBadKeyUsage: OSStatus = -67625
/// `-67626`: The key usage extension is not marked as critical.
public let errSecSMIMEKeyUsageNotCritical: OSStatus = -67626
/// `-67627`: No email address was found in the certificate.
public let errSecSMIMENoEmailAddress: OSStatus = -67627
/// `-67628`: The subject alternative name extension is not marked as critical.
public let errSecSMIMESubjAltNameNotCritical: OSStatus = -67628
/// `-67629`: The appropriate extended key usage for SSL was not found.
public let errSecSSLBadExtendedKeyUsage: OSStatus = -67629
/// `-67630`: The OCSP response was incorrect or could not be parsed.
public let errSecOCSPBadResponse: OSStatus = -67630
/// `-67631`: The OCSP request was incorrect or could not be parsed.
public let errSecOCSPBadRequest: OSStatus = -67631
/// `-67632`: OCSP service is unavailable.
public let errSecOCSPUnavailable: OSStatus = -67632
/// `-67633`: The OCSP server did not recognize this certificate.
public let errSecOCSPStatusUnrecognized: OSStatus = -67633
/// `-67634`: An end-of-data was detected.
public let errSecEndOfData: OSStatus = -67634
/// `-67635`: An incomplete certificate revocation check occurred.
public let errSecIncompleteCertRevocationCheck: OSStatus = -67635
/// `-67636`: A network failure occurred.
public let errSecNetworkFailure: OSStatus = -67636
/// `-67637`: The OCSP response was not trusted to a root or anchor certificate.
public let errSecOCSPNotTrustedToAnchor: OSStatus = -67637
/// `-67638`: The record was modified.
public let errSecRecordModified: OSStatus = -67638
/// `-67639`: The OCSP response had an invalid signature.
public let errSecOCSPSignatureError: OSStatus = -67639
/// `-67640`: The OCSP response had no signer.
public let errSecOCSPNoSigner: OSStatus = -67640
/// `-67641`: The OCSP responder was given a malformed request.
public let errSecOCSPResponderMalformedReq: OSStatus = -67641
/// `-67642`: The OCSP responder encountered an internal error.
public let errSecOCSPResponderInternalError: OSStatus = -67642
/// `-67643`: The OCSP responder is busy, try again later.
public let errSecOCSPResponderTryLater: OSStatus = -67643
/// `-67644`: The OCSP responder requires a signature.
public let errSecOCSPResponderSignatureRequired: OSStatus = -67644
/// `-67645`: The OCSP responder rejected this request as unauthorized.
public let errSecOCSPResponderUnauthorized: OSStatus = -67645
/// `-67646`: The OCSP response nonce did not match the request.
public let errSecOCSPResponseNonceMismatch: OSStatus = -67646
/// `-67647`: Code signing encountered an incorrect certificate chain length.
public let errSecCodeSigningBadCertChainLength: OSStatus = -67647
/// `-67648`: Code signing found no basic constraints.
public let errSecCodeSigningNoBasicConstraints: OSStatus = -67648
/// `-67649`: Code signing encountered an incorrect path length constraint.
public let errSecCodeSigningBadPathLengthConstraint: OSStatus = -67649
/// `-67650`: Code signing found no extended key usage.
public let errSecCodeSigningNoExtendedKeyUsage: OSStatus = -67650
/// `-67651`: Code signing indicated use of a development-only certificate.
public let errSecCodeSigningDevelopment: OSStatus = -67651
/// `-67652`: Resource signing has encountered an incorrect certificate chain length.
public let errSecResourceSignBadCertChainLength: OSStatus = -67652
/// `-67653`: Resource signing has encountered an error in the extended key usage.
public let errSecResourceSignBadExtKeyUsage: OSStatus = -67653
/// `-67654`: The trust setting for this policy was set to Deny.
public let errSecTrustSettingDeny: OSStatus = -67654
/// `-67655`: An invalid certificate subject name was encountered.
public let errSecInvalidSubjectName: OSStatus = -67655
/// `-67656`: An unknown qualified certificate statement was encountered.
public let errSecUnknownQualifiedCertStatement: OSStatus = -67656
/// `-67657`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeRequestQueued: OSStatus = -67657
/// `-67658`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeRequestRedirected: OSStatus = -67658
/// `-67659`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeServerError: OSStatus = -67659
/// `-67660`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeServerNotAvailable: OSStatus = -67660
/// `-67661`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeServerAlreadyExists: OSStatus = -67661
/// `-67662`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeServerServiceErr: OSStatus = -67662
/// `-67663`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeRequestAlreadyPending: OSStatus = -67663
/// `-67664`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeNoRequestPending: OSStatus = -67664
/// `-67665`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeCSRVerifyFailure: OSStatus = -67665
/// `-67666`: Apple's header gives this code no message; `SecCopyErrorMessageString` returns its name.
public let errSecMobileMeFailedConsistencyCheck: OSStatus = -67666

extension StatusMessages {
    /// Messages of the certificate, trust and revocation status codes.
    static let trust: [OSStatus: String] = [
        errSecServiceNotAvailable: "The required service is not available.",
        errSecInsufficientClientID: "The client ID is not correct.",
        errSecDeviceReset: "A device reset has occurred.",
        errSecDeviceFailed: "A device failure has occurred.",
        errSecAppleAddAppACLSubject: "Adding an application ACL subject failed.",
        errSecApplePublicKeyIncomplete: "The public key is incomplete.",
        errSecAppleSignatureMismatch: "A signature mismatch has occurred.",
        errSecAppleInvalidKeyStartDate: "The specified key has an invalid start date.",
        errSecAppleInvalidKeyEndDate: "The specified key has an invalid end date.",
        errSecConversionError: "A conversion error has occurred.",
        errSecAppleSSLv2Rollback: "A SSLv2 rollback error has occurred.",
        errSecQuotaExceeded: "The quota was exceeded.",
        errSecFileTooBig: "The file is too big.",
        errSecInvalidDatabaseBlob: "The specified database has an invalid blob.",
        errSecInvalidKeyBlob: "The specified database has an invalid key blob.",
        errSecIncompatibleDatabaseBlob: "The specified database has an incompatible blob.",
        errSecIncompatibleKeyBlob: "The specified database has an incompatible key blob.",
        errSecHostNameMismatch: "A host name mismatch has occurred.",
        errSecUnknownCriticalExtensionFlag: "There is an unknown critical extension flag.",
        errSecNoBasicConstraints: "No basic constraints were found.",
        errSecNoBasicConstraintsCA: "No basic CA constraints were found.",
        errSecInvalidAuthorityKeyID: "The authority key ID is not valid.",
        errSecInvalidSubjectKeyID: "The subject key ID is not valid.",
        errSecInvalidKeyUsageForPolicy: "The key usage is not valid for the specified policy.",
        errSecInvalidExtendedKeyUsage: "The extended key usage is not valid.",
        errSecInvalidIDLinkage: "The ID linkage is not valid.",
        errSecPathLengthConstraintExceeded: "The path length constraint was exceeded.",
        errSecInvalidRoot: "The root or anchor certificate is not valid.",
        errSecCRLExpired: "The CRL has expired.",
        errSecCRLNotValidYet: "The CRL is not yet valid.",
        errSecCRLNotFound: "The CRL was not found.",
        errSecCRLServerDown: "The CRL server is down.",
        errSecCRLBadURI: "The CRL has a bad Uniform Resource Identifier.",
        errSecUnknownCertExtension: "An unknown certificate extension was encountered.",
        errSecUnknownCRLExtension: "An unknown CRL extension was encountered.",
        errSecCRLNotTrusted: "The CRL is not trusted.",
        errSecCRLPolicyFailed: "The CRL policy failed.",
        errSecIDPFailure: "The issuing distribution point was not valid.",
        errSecSMIMEEmailAddressesNotFound: "An email address mismatch was encountered.",
        errSecSMIMEBadExtendedKeyUsage: "The appropriate extended key usage for SMIME was not found.",
        errSecSMIMEBadKeyUsage: "The key usage is not compatible with SMIME.",
        errSecSMIMEKeyUsageNotCritical: "The key usage extension is not marked as critical.",
        errSecSMIMENoEmailAddress: "No email address was found in the certificate.",
        errSecSMIMESubjAltNameNotCritical: "The subject alternative name extension is not marked as critical.",
        errSecSSLBadExtendedKeyUsage: "The appropriate extended key usage for SSL was not found.",
        errSecOCSPBadResponse: "The OCSP response was incorrect or could not be parsed.",
        errSecOCSPBadRequest: "The OCSP request was incorrect or could not be parsed.",
        errSecOCSPUnavailable: "OCSP service is unavailable.",
        errSecOCSPStatusUnrecognized: "The OCSP server did not recognize this certificate.",
        errSecEndOfData: "An end-of-data was detected.",
        errSecIncompleteCertRevocationCheck: "An incomplete certificate revocation check occurred.",
        errSecNetworkFailure: "A network failure occurred.",
        errSecOCSPNotTrustedToAnchor: "The OCSP response was not trusted to a root or anchor certificate.",
        errSecRecordModified: "The record was modified.",
        errSecOCSPSignatureError: "The OCSP response had an invalid signature.",
        errSecOCSPNoSigner: "The OCSP response had no signer.",
        errSecOCSPResponderMalformedReq: "The OCSP responder was given a malformed request.",
        errSecOCSPResponderInternalError: "The OCSP responder encountered an internal error.",
        errSecOCSPResponderTryLater: "The OCSP responder is busy, try again later.",
        errSecOCSPResponderSignatureRequired: "The OCSP responder requires a signature.",
        errSecOCSPResponderUnauthorized: "The OCSP responder rejected this request as unauthorized.",
        errSecOCSPResponseNonceMismatch: "The OCSP response nonce did not match the request.",
        errSecCodeSigningBadCertChainLength: "Code signing encountered an incorrect certificate chain length.",
        errSecCodeSigningNoBasicConstraints: "Code signing found no basic constraints.",
        errSecCodeSigningBadPathLengthConstraint: "Code signing encountered an incorrect path length constraint.",
        errSecCodeSigningNoExtendedKeyUsage: "Code signing found no extended key usage.",
        errSecCodeSigningDevelopment: "Code signing indicated use of a development-only certificate.",
        errSecResourceSignBadCertChainLength: "Resource signing has encountered an incorrect certificate chain length.",
        errSecResourceSignBadExtKeyUsage: "Resource signing has encountered an error in the extended key usage.",
        errSecTrustSettingDeny: "The trust setting for this policy was set to Deny.",
        errSecInvalidSubjectName: "An invalid certificate subject name was encountered.",
        errSecUnknownQualifiedCertStatement: "An unknown qualified certificate statement was encountered.",
        errSecMobileMeRequestQueued: "errSecMobileMeRequestQueued",
        errSecMobileMeRequestRedirected: "errSecMobileMeRequestRedirected",
        errSecMobileMeServerError: "errSecMobileMeServerError",
        errSecMobileMeServerNotAvailable: "errSecMobileMeServerNotAvailable",
        errSecMobileMeServerAlreadyExists: "errSecMobileMeServerAlreadyExists",
        errSecMobileMeServerServiceErr: "errSecMobileMeServerServiceErr",
        errSecMobileMeRequestAlreadyPending: "errSecMobileMeRequestAlreadyPending",
        errSecMobileMeNoRequestPending: "errSecMobileMeNoRequestPending",
        errSecMobileMeCSRVerifyFailure: "errSecMobileMeCSRVerifyFailure",
        errSecMobileMeFailedConsistencyCheck: "errSecMobileMeFailedConsistencyCheck",
    ]
}
