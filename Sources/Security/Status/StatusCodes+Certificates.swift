// Apple's OSStatus values and messages for the certificate, CRL, trust-policy and timestamp status codes,
// in the order of Apple's SecBase.h. Each message is the header comment Apple builds SecErrorMessages.strings from.

/// `-67810`: A block size mismatch occurred.
public let errSecBlockSizeMismatch: OSStatus = -67810
/// `-67811`: The public key was inconsistent.
public let errSecPublicKeyInconsistent: OSStatus = -67811
/// `-67812`: A device verification failure has occurred.
public let errSecDeviceVerifyFailed: OSStatus = -67812
/// `-67813`: An invalid login name was detected.
public let errSecInvalidLoginName: OSStatus = -67813
/// `-67814`: The user is already logged in.
public let errSecAlreadyLoggedIn: OSStatus = -67814
/// `-67815`: An invalid digest algorithm was detected.
public let errSecInvalidDigestAlgorithm: OSStatus = -67815
/// `-67816`: An invalid CRL group was detected.
public let errSecInvalidCRLGroup: OSStatus = -67816
/// `-67817`: The certificate cannot operate.
public let errSecCertificateCannotOperate: OSStatus = -67817
/// `-67818`: An expired certificate was detected.
public let errSecCertificateExpired: OSStatus = -67818
/// `-67819`: The certificate is not yet valid.
public let errSecCertificateNotValidYet: OSStatus = -67819
/// `-67820`: The certificate was revoked.
public let errSecCertificateRevoked: OSStatus = -67820
/// `-67821`: The certificate was suspended.
public let errSecCertificateSuspended: OSStatus = -67821
/// `-67822`: Insufficient credentials were detected.
public let errSecInsufficientCredentials: OSStatus = -67822
/// `-67823`: The action was not valid.
public let errSecInvalidAction: OSStatus = -67823
/// `-67824`: The authority was not valid.
public let errSecInvalidAuthority: OSStatus = -67824
/// `-67825`: A verify action has failed.
public let errSecVerifyActionFailed: OSStatus = -67825
/// `-67826`: The certificate authority was not valid.
public let errSecInvalidCertAuthority: OSStatus = -67826
/// `-67827`: The CRL authority was not valid.
public let errSecInvaldCRLAuthority: OSStatus = -67827
/// `-67827`: the newer spelling of ``errSecInvaldCRLAuthority``.
public let errSecInvalidCRLAuthority: OSStatus = -67827
/// `-67828`: The CRL encoding was not valid.
public let errSecInvalidCRLEncoding: OSStatus = -67828
/// `-67829`: The CRL type was not valid.
public let errSecInvalidCRLType: OSStatus = -67829
/// `-67830`: The CRL was not valid.
public let errSecInvalidCRL: OSStatus = -67830
/// `-67831`: The form type was not valid.
public let errSecInvalidFormType: OSStatus = -67831
/// `-67832`: The ID was not valid.
public let errSecInvalidID: OSStatus = -67832
/// `-67833`: The identifier was not valid.
public let errSecInvalidIdentifier: OSStatus = -67833
/// `-67834`: The index was not valid.
public let errSecInvalidIndex: OSStatus = -67834
/// `-67835`: The policy identifiers are not valid.
public let errSecInvalidPolicyIdentifiers: OSStatus = -67835
/// `-67836`: The time specified was not valid.
public let errSecInvalidTimeString: OSStatus = -67836
/// `-67837`: The trust policy reason was not valid.
public let errSecInvalidReason: OSStatus = -67837
/// `-67838`: The request inputs are not valid.
public let errSecInvalidRequestInputs: OSStatus = -67838
/// `-67839`: The response vector was not valid.
public let errSecInvalidResponseVector: OSStatus = -67839
/// `-67840`: The stop-on policy was not valid.
public let errSecInvalidStopOnPolicy: OSStatus = -67840
/// `-67841`: The tuple was not valid.
public let errSecInvalidTuple: OSStatus = -67841
/// `-67842`: Multiple values are not supported.
public let errSecMultipleValuesUnsupported: OSStatus = -67842
/// `-67843`: The certificate was not trusted.
public let errSecNotTrusted: OSStatus = -67843
/// `-67844`: No default authority was detected.
public let errSecNoDefaultAuthority: OSStatus = -67844
/// `-67845`: The trust policy had a rejected form.
public let errSecRejectedForm: OSStatus = -67845
/// `-67846`: The request was lost.
public let errSecRequestLost: OSStatus = -67846
/// `-67847`: The request was rejected.
public let errSecRequestRejected: OSStatus = -67847
/// `-67848`: The address type is not supported.
public let errSecUnsupportedAddressType: OSStatus = -67848
/// `-67849`: The service is not supported.
public let errSecUnsupportedService: OSStatus = -67849
/// `-67850`: The tuple group was not valid.
public let errSecInvalidTupleGroup: OSStatus = -67850
/// `-67851`: The base ACLs are not valid.
public let errSecInvalidBaseACLs: OSStatus = -67851
/// `-67852`: The tuple credentials are not valid.
public let errSecInvalidTupleCredendtials: OSStatus = -67852
/// `-67852`: the newer spelling of ``errSecInvalidTupleCredendtials``.
public let errSecInvalidTupleCredentials: OSStatus = -67852
/// `-67853`: The encoding was not valid.
public let errSecInvalidEncoding: OSStatus = -67853
/// `-67854`: The validity period was not valid.
public let errSecInvalidValidityPeriod: OSStatus = -67854
/// `-67855`: The requestor was not valid.
public let errSecInvalidRequestor: OSStatus = -67855
/// `-67856`: The request descriptor was not valid.
public let errSecRequestDescriptor: OSStatus = -67856
/// `-67857`: The bundle information was not valid.
public let errSecInvalidBundleInfo: OSStatus = -67857
/// `-67858`: The CRL index was not valid.
public let errSecInvalidCRLIndex: OSStatus = -67858
/// `-67859`: No field values were detected.
public let errSecNoFieldValues: OSStatus = -67859
/// `-67860`: The field format is not supported.
public let errSecUnsupportedFieldFormat: OSStatus = -67860
/// `-67861`: The index information is not supported.
public let errSecUnsupportedIndexInfo: OSStatus = -67861
/// `-67862`: The locality is not supported.
public let errSecUnsupportedLocality: OSStatus = -67862
/// `-67863`: The number of attributes is not supported.
public let errSecUnsupportedNumAttributes: OSStatus = -67863
/// `-67864`: The number of indexes is not supported.
public let errSecUnsupportedNumIndexes: OSStatus = -67864
/// `-67865`: The number of record types is not supported.
public let errSecUnsupportedNumRecordTypes: OSStatus = -67865
/// `-67866`: Too many fields were specified.
public let errSecFieldSpecifiedMultiple: OSStatus = -67866
/// `-67867`: The field format was incompatible.
public let errSecIncompatibleFieldFormat: OSStatus = -67867
/// `-67868`: The parsing module was not valid.
public let errSecInvalidParsingModule: OSStatus = -67868
/// `-67869`: The database is locked.
public let errSecDatabaseLocked: OSStatus = -67869
/// `-67870`: The data store is open.
public let errSecDatastoreIsOpen: OSStatus = -67870
/// `-67871`: A missing value was detected.
public let errSecMissingValue: OSStatus = -67871
/// `-67872`: The query limits are not supported.
public let errSecUnsupportedQueryLimits: OSStatus = -67872
/// `-67873`: The number of selection predicates is not supported.
public let errSecUnsupportedNumSelectionPreds: OSStatus = -67873
/// `-67874`: The operator is not supported.
public let errSecUnsupportedOperator: OSStatus = -67874
/// `-67875`: The database location is not valid.
public let errSecInvalidDBLocation: OSStatus = -67875
/// `-67876`: The access request is not valid.
public let errSecInvalidAccessRequest: OSStatus = -67876
/// `-67877`: The index information is not valid.
public let errSecInvalidIndexInfo: OSStatus = -67877
/// `-67878`: The new owner is not valid.
public let errSecInvalidNewOwner: OSStatus = -67878
/// `-67879`: The modify mode is not valid.
public let errSecInvalidModifyMode: OSStatus = -67879
/// `-67880`: A required certificate extension is missing.
public let errSecMissingRequiredExtension: OSStatus = -67880
/// `-67881`: The extended key usage extension was not marked critical.
public let errSecExtendedKeyUsageNotCritical: OSStatus = -67881
/// `-67882`: A timestamp was expected but was not found.
public let errSecTimestampMissing: OSStatus = -67882
/// `-67883`: The timestamp was not valid.
public let errSecTimestampInvalid: OSStatus = -67883
/// `-67884`: The timestamp was not trusted.
public let errSecTimestampNotTrusted: OSStatus = -67884
/// `-67885`: The timestamp service is not available.
public let errSecTimestampServiceNotAvailable: OSStatus = -67885
/// `-67886`: An unrecognized or unsupported Algorithm Identifier in timestamp.
public let errSecTimestampBadAlg: OSStatus = -67886
/// `-67887`: The timestamp transaction is not permitted or supported.
public let errSecTimestampBadRequest: OSStatus = -67887
/// `-67888`: The timestamp data submitted has the wrong format.
public let errSecTimestampBadDataFormat: OSStatus = -67888
/// `-67889`: The time source for the Timestamp Authority is not available.
public let errSecTimestampTimeNotAvailable: OSStatus = -67889
/// `-67890`: The requested policy is not supported by the Timestamp Authority.
public let errSecTimestampUnacceptedPolicy: OSStatus = -67890
/// `-67891`: The requested extension is not supported by the Timestamp Authority.
public let errSecTimestampUnacceptedExtension: OSStatus = -67891
/// `-67892`: The additional information requested is not available.
public let errSecTimestampAddInfoNotAvailable: OSStatus = -67892
/// `-67893`: The timestamp request cannot be handled due to system failure.
public let errSecTimestampSystemFailure: OSStatus = -67893
/// `-67894`: A signing time was expected but was not found.
public let errSecSigningTimeMissing: OSStatus = -67894
/// `-67895`: A timestamp transaction was rejected.
public let errSecTimestampRejection: OSStatus = -67895
/// `-67896`: A timestamp transaction is waiting.
public let errSecTimestampWaiting: OSStatus = -67896
/// `-67897`: A timestamp authority revocation warning was issued.
public let errSecTimestampRevocationWarning: OSStatus = -67897
/// `-67898`: A timestamp authority revocation notification was issued.
public let errSecTimestampRevocationNotification: OSStatus = -67898
/// `-67899`: The requested policy is not allowed for this certificate.
public let errSecCertificatePolicyNotAllowed: OSStatus = -67899
/// `-67900`: The requested name is not allowed for this certificate.
public let errSecCertificateNameNotAllowed: OSStatus = -67900
/// `-67901`: The validity period in the certificate exceeds the maximum allowed.
public let errSecCertificateValidityPeriodTooLong: OSStatus = -67901
/// `-67902`: The verified certificate is a CA rather than an end-entity
public let errSecCertificateIsCA: OSStatus = -67902
/// `-67903`: The certificate contains multiple extensions with the same extension ID.
public let errSecCertificateDuplicateExtension: OSStatus = -67903

extension StatusMessages {
    /// Messages of the certificate, CRL, trust-policy and timestamp status codes.
    static let certificates: [OSStatus: String] = [
        errSecBlockSizeMismatch: "A block size mismatch occurred.",
        errSecPublicKeyInconsistent: "The public key was inconsistent.",
        errSecDeviceVerifyFailed: "A device verification failure has occurred.",
        errSecInvalidLoginName: "An invalid login name was detected.",
        errSecAlreadyLoggedIn: "The user is already logged in.",
        errSecInvalidDigestAlgorithm: "An invalid digest algorithm was detected.",
        errSecInvalidCRLGroup: "An invalid CRL group was detected.",
        errSecCertificateCannotOperate: "The certificate cannot operate.",
        errSecCertificateExpired: "An expired certificate was detected.",
        errSecCertificateNotValidYet: "The certificate is not yet valid.",
        errSecCertificateRevoked: "The certificate was revoked.",
        errSecCertificateSuspended: "The certificate was suspended.",
        errSecInsufficientCredentials: "Insufficient credentials were detected.",
        errSecInvalidAction: "The action was not valid.",
        errSecInvalidAuthority: "The authority was not valid.",
        errSecVerifyActionFailed: "A verify action has failed.",
        errSecInvalidCertAuthority: "The certificate authority was not valid.",
        errSecInvaldCRLAuthority: "The CRL authority was not valid.",
        errSecInvalidCRLEncoding: "The CRL encoding was not valid.",
        errSecInvalidCRLType: "The CRL type was not valid.",
        errSecInvalidCRL: "The CRL was not valid.",
        errSecInvalidFormType: "The form type was not valid.",
        errSecInvalidID: "The ID was not valid.",
        errSecInvalidIdentifier: "The identifier was not valid.",
        errSecInvalidIndex: "The index was not valid.",
        errSecInvalidPolicyIdentifiers: "The policy identifiers are not valid.",
        errSecInvalidTimeString: "The time specified was not valid.",
        errSecInvalidReason: "The trust policy reason was not valid.",
        errSecInvalidRequestInputs: "The request inputs are not valid.",
        errSecInvalidResponseVector: "The response vector was not valid.",
        errSecInvalidStopOnPolicy: "The stop-on policy was not valid.",
        errSecInvalidTuple: "The tuple was not valid.",
        errSecMultipleValuesUnsupported: "Multiple values are not supported.",
        errSecNotTrusted: "The certificate was not trusted.",
        errSecNoDefaultAuthority: "No default authority was detected.",
        errSecRejectedForm: "The trust policy had a rejected form.",
        errSecRequestLost: "The request was lost.",
        errSecRequestRejected: "The request was rejected.",
        errSecUnsupportedAddressType: "The address type is not supported.",
        errSecUnsupportedService: "The service is not supported.",
        errSecInvalidTupleGroup: "The tuple group was not valid.",
        errSecInvalidBaseACLs: "The base ACLs are not valid.",
        errSecInvalidTupleCredendtials: "The tuple credentials are not valid.",
        errSecInvalidEncoding: "The encoding was not valid.",
        errSecInvalidValidityPeriod: "The validity period was not valid.",
        errSecInvalidRequestor: "The requestor was not valid.",
        errSecRequestDescriptor: "The request descriptor was not valid.",
        errSecInvalidBundleInfo: "The bundle information was not valid.",
        errSecInvalidCRLIndex: "The CRL index was not valid.",
        errSecNoFieldValues: "No field values were detected.",
        errSecUnsupportedFieldFormat: "The field format is not supported.",
        errSecUnsupportedIndexInfo: "The index information is not supported.",
        errSecUnsupportedLocality: "The locality is not supported.",
        errSecUnsupportedNumAttributes: "The number of attributes is not supported.",
        errSecUnsupportedNumIndexes: "The number of indexes is not supported.",
        errSecUnsupportedNumRecordTypes: "The number of record types is not supported.",
        errSecFieldSpecifiedMultiple: "Too many fields were specified.",
        errSecIncompatibleFieldFormat: "The field format was incompatible.",
        errSecInvalidParsingModule: "The parsing module was not valid.",
        errSecDatabaseLocked: "The database is locked.",
        errSecDatastoreIsOpen: "The data store is open.",
        errSecMissingValue: "A missing value was detected.",
        errSecUnsupportedQueryLimits: "The query limits are not supported.",
        errSecUnsupportedNumSelectionPreds: "The number of selection predicates is not supported.",
        errSecUnsupportedOperator: "The operator is not supported.",
        errSecInvalidDBLocation: "The database location is not valid.",
        errSecInvalidAccessRequest: "The access request is not valid.",
        errSecInvalidIndexInfo: "The index information is not valid.",
        errSecInvalidNewOwner: "The new owner is not valid.",
        errSecInvalidModifyMode: "The modify mode is not valid.",
        errSecMissingRequiredExtension: "A required certificate extension is missing.",
        errSecExtendedKeyUsageNotCritical: "The extended key usage extension was not marked critical.",
        errSecTimestampMissing: "A timestamp was expected but was not found.",
        errSecTimestampInvalid: "The timestamp was not valid.",
        errSecTimestampNotTrusted: "The timestamp was not trusted.",
        errSecTimestampServiceNotAvailable: "The timestamp service is not available.",
        errSecTimestampBadAlg: "An unrecognized or unsupported Algorithm Identifier in timestamp.",
        errSecTimestampBadRequest: "The timestamp transaction is not permitted or supported.",
        errSecTimestampBadDataFormat: "The timestamp data submitted has the wrong format.",
        errSecTimestampTimeNotAvailable: "The time source for the Timestamp Authority is not available.",
        errSecTimestampUnacceptedPolicy: "The requested policy is not supported by the Timestamp Authority.",
        errSecTimestampUnacceptedExtension: "The requested extension is not supported by the Timestamp Authority.",
        errSecTimestampAddInfoNotAvailable: "The additional information requested is not available.",
        errSecTimestampSystemFailure: "The timestamp request cannot be handled due to system failure.",
        errSecSigningTimeMissing: "A signing time was expected but was not found.",
        errSecTimestampRejection: "A timestamp transaction was rejected.",
        errSecTimestampWaiting: "A timestamp transaction is waiting.",
        errSecTimestampRevocationWarning: "A timestamp authority revocation warning was issued.",
        errSecTimestampRevocationNotification: "A timestamp authority revocation notification was issued.",
        errSecCertificatePolicyNotAllowed: "The requested policy is not allowed for this certificate.",
        errSecCertificateNameNotAllowed: "The requested name is not allowed for this certificate.",
        errSecCertificateValidityPeriodTooLong: "The validity period in the certificate exceeds the maximum allowed.",
        errSecCertificateIsCA: "The verified certificate is a CA rather than an end-entity",
        errSecCertificateDuplicateExtension: "The certificate contains multiple extensions with the same extension ID.",
    ]
}
