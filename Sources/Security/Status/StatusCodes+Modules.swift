// Apple's OSStatus values and messages for the module, handle and key status codes,
// in the order of Apple's SecBase.h. Each message is the header comment Apple builds SecErrorMessages.strings from.

/// `-67667`: A function was called without initializing CSSM.
public let errSecNotInitialized: OSStatus = -67667
/// `-67668`: The CSSM handle does not match with the service type.
public let errSecInvalidHandleUsage: OSStatus = -67668
/// `-67669`: A reference to the calling module was not found in the list of authorized callers.
public let errSecPVCReferentNotFound: OSStatus = -67669
/// `-67670`: A function address was not within the verified module.
public let errSecFunctionIntegrityFail: OSStatus = -67670
/// `-67671`: An internal error has occurred.
public let errSecInternalError: OSStatus = -67671
/// `-67672`: A memory error has occurred.
public let errSecMemoryError: OSStatus = -67672
/// `-67673`: Invalid data was encountered.
public let errSecInvalidData: OSStatus = -67673
/// `-67674`: A Module Directory Service error has occurred.
public let errSecMDSError: OSStatus = -67674
/// `-67675`: An invalid pointer was encountered.
public let errSecInvalidPointer: OSStatus = -67675
/// `-67676`: Self-check has failed.
public let errSecSelfCheckFailed: OSStatus = -67676
/// `-67677`: A function has failed.
public let errSecFunctionFailed: OSStatus = -67677
/// `-67678`: A module manifest verification failure has occurred.
public let errSecModuleManifestVerifyFailed: OSStatus = -67678
/// `-67679`: An invalid GUID was encountered.
public let errSecInvalidGUID: OSStatus = -67679
/// `-67680`: An invalid handle was encountered.
public let errSecInvalidHandle: OSStatus = -67680
/// `-67681`: An invalid DB list was encountered.
public let errSecInvalidDBList: OSStatus = -67681
/// `-67682`: An invalid passthrough ID was encountered.
public let errSecInvalidPassthroughID: OSStatus = -67682
/// `-67683`: An invalid network address was encountered.
public let errSecInvalidNetworkAddress: OSStatus = -67683
/// `-67684`: The certificate revocation list is already signed.
public let errSecCRLAlreadySigned: OSStatus = -67684
/// `-67685`: An invalid number of fields were encountered.
public let errSecInvalidNumberOfFields: OSStatus = -67685
/// `-67686`: A verification failure occurred.
public let errSecVerificationFailure: OSStatus = -67686
/// `-67687`: An unknown tag was encountered.
public let errSecUnknownTag: OSStatus = -67687
/// `-67688`: An invalid signature was encountered.
public let errSecInvalidSignature: OSStatus = -67688
/// `-67689`: An invalid name was encountered.
public let errSecInvalidName: OSStatus = -67689
/// `-67690`: An invalid certificate reference was encountered.
public let errSecInvalidCertificateRef: OSStatus = -67690
/// `-67691`: An invalid certificate group was encountered.
public let errSecInvalidCertificateGroup: OSStatus = -67691
/// `-67692`: The specified tag was not found.
public let errSecTagNotFound: OSStatus = -67692
/// `-67693`: The specified query was not valid.
public let errSecInvalidQuery: OSStatus = -67693
/// `-67694`: An invalid value was detected.
public let errSecInvalidValue: OSStatus = -67694
/// `-67695`: A callback has failed.
public let errSecCallbackFailed: OSStatus = -67695
/// `-67696`: An ACL delete operation has failed.
public let errSecACLDeleteFailed: OSStatus = -67696
/// `-67697`: An ACL replace operation has failed.
public let errSecACLReplaceFailed: OSStatus = -67697
/// `-67698`: An ACL add operation has failed.
public let errSecACLAddFailed: OSStatus = -67698
/// `-67699`: An ACL change operation has failed.
public let errSecACLChangeFailed: OSStatus = -67699
/// `-67700`: Invalid access credentials were encountered.
public let errSecInvalidAccessCredentials: OSStatus = -67700
/// `-67701`: An invalid record was encountered.
public let errSecInvalidRecord: OSStatus = -67701
/// `-67702`: An invalid ACL was encountered.
public let errSecInvalidACL: OSStatus = -67702
/// `-67703`: An invalid sample value was encountered.
public let errSecInvalidSampleValue: OSStatus = -67703
/// `-67704`: An incompatible version was encountered.
public let errSecIncompatibleVersion: OSStatus = -67704
/// `-67705`: The privilege was not granted.
public let errSecPrivilegeNotGranted: OSStatus = -67705
/// `-67706`: An invalid scope was encountered.
public let errSecInvalidScope: OSStatus = -67706
/// `-67707`: The PVC is already configured.
public let errSecPVCAlreadyConfigured: OSStatus = -67707
/// `-67708`: An invalid PVC was encountered.
public let errSecInvalidPVC: OSStatus = -67708
/// `-67709`: The EMM load has failed.
public let errSecEMMLoadFailed: OSStatus = -67709
/// `-67710`: The EMM unload has failed.
public let errSecEMMUnloadFailed: OSStatus = -67710
/// `-67711`: The add-in load operation has failed.
public let errSecAddinLoadFailed: OSStatus = -67711
/// `-67712`: An invalid key was encountered.
public let errSecInvalidKeyRef: OSStatus = -67712
/// `-67713`: An invalid key hierarchy was encountered.
public let errSecInvalidKeyHierarchy: OSStatus = -67713
/// `-67714`: The add-in unload operation has failed.
public let errSecAddinUnloadFailed: OSStatus = -67714
/// `-67715`: A library reference was not found.
public let errSecLibraryReferenceNotFound: OSStatus = -67715
/// `-67716`: An invalid add-in function table was encountered.
public let errSecInvalidAddinFunctionTable: OSStatus = -67716
/// `-67717`: An invalid service mask was encountered.
public let errSecInvalidServiceMask: OSStatus = -67717
/// `-67718`: A module was not loaded.
public let errSecModuleNotLoaded: OSStatus = -67718
/// `-67719`: An invalid subservice ID was encountered.
public let errSecInvalidSubServiceID: OSStatus = -67719
/// `-67720`: An attribute was not in the context.
public let errSecAttributeNotInContext: OSStatus = -67720
/// `-67721`: A module failed to initialize.
public let errSecModuleManagerInitializeFailed: OSStatus = -67721
/// `-67722`: A module was not found.
public let errSecModuleManagerNotFound: OSStatus = -67722
/// `-67723`: An event notification callback was not found.
public let errSecEventNotificationCallbackNotFound: OSStatus = -67723
/// `-67724`: An input length error was encountered.
public let errSecInputLengthError: OSStatus = -67724
/// `-67725`: An output length error was encountered.
public let errSecOutputLengthError: OSStatus = -67725
/// `-67726`: The privilege is not supported.
public let errSecPrivilegeNotSupported: OSStatus = -67726
/// `-67727`: A device error was encountered.
public let errSecDeviceError: OSStatus = -67727
/// `-67728`: The CSP handle was busy.
public let errSecAttachHandleBusy: OSStatus = -67728
/// `-67729`: You are not logged in.
public let errSecNotLoggedIn: OSStatus = -67729
/// `-67730`: An algorithm mismatch was encountered.
public let errSecAlgorithmMismatch: OSStatus = -67730
/// `-67731`: The key usage is incorrect.
public let errSecKeyUsageIncorrect: OSStatus = -67731
/// `-67732`: The key blob type is incorrect.
public let errSecKeyBlobTypeIncorrect: OSStatus = -67732
/// `-67733`: The key header is inconsistent.
public let errSecKeyHeaderInconsistent: OSStatus = -67733
/// `-67734`: The key header format is not supported.
public let errSecUnsupportedKeyFormat: OSStatus = -67734
/// `-67735`: The key size is not supported.
public let errSecUnsupportedKeySize: OSStatus = -67735
/// `-67736`: The key usage mask is not valid.
public let errSecInvalidKeyUsageMask: OSStatus = -67736
/// `-67737`: The key usage mask is not supported.
public let errSecUnsupportedKeyUsageMask: OSStatus = -67737
/// `-67738`: The key attribute mask is not valid.
public let errSecInvalidKeyAttributeMask: OSStatus = -67738
/// `-67739`: The key attribute mask is not supported.
public let errSecUnsupportedKeyAttributeMask: OSStatus = -67739
/// `-67740`: The key label is not valid.
public let errSecInvalidKeyLabel: OSStatus = -67740
/// `-67741`: The key label is not supported.
public let errSecUnsupportedKeyLabel: OSStatus = -67741
/// `-67742`: The key format is not valid.
public let errSecInvalidKeyFormat: OSStatus = -67742
/// `-67743`: The vector of buffers is not supported.
public let errSecUnsupportedVectorOfBuffers: OSStatus = -67743
/// `-67744`: The input vector is not valid.
public let errSecInvalidInputVector: OSStatus = -67744
/// `-67745`: The output vector is not valid.
public let errSecInvalidOutputVector: OSStatus = -67745
/// `-67746`: An invalid context was encountered.
public let errSecInvalidContext: OSStatus = -67746
/// `-67747`: An invalid algorithm was encountered.
public let errSecInvalidAlgorithm: OSStatus = -67747

extension StatusMessages {
    /// Messages of the module, handle and key status codes.
    static let modules: [OSStatus: String] = [
        errSecNotInitialized: "A function was called without initializing CSSM.",
        errSecInvalidHandleUsage: "The CSSM handle does not match with the service type.",
        errSecPVCReferentNotFound: "A reference to the calling module was not found in the list of authorized callers.",
        errSecFunctionIntegrityFail: "A function address was not within the verified module.",
        errSecInternalError: "An internal error has occurred.",
        errSecMemoryError: "A memory error has occurred.",
        errSecInvalidData: "Invalid data was encountered.",
        errSecMDSError: "A Module Directory Service error has occurred.",
        errSecInvalidPointer: "An invalid pointer was encountered.",
        errSecSelfCheckFailed: "Self-check has failed.",
        errSecFunctionFailed: "A function has failed.",
        errSecModuleManifestVerifyFailed: "A module manifest verification failure has occurred.",
        errSecInvalidGUID: "An invalid GUID was encountered.",
        errSecInvalidHandle: "An invalid handle was encountered.",
        errSecInvalidDBList: "An invalid DB list was encountered.",
        errSecInvalidPassthroughID: "An invalid passthrough ID was encountered.",
        errSecInvalidNetworkAddress: "An invalid network address was encountered.",
        errSecCRLAlreadySigned: "The certificate revocation list is already signed.",
        errSecInvalidNumberOfFields: "An invalid number of fields were encountered.",
        errSecVerificationFailure: "A verification failure occurred.",
        errSecUnknownTag: "An unknown tag was encountered.",
        errSecInvalidSignature: "An invalid signature was encountered.",
        errSecInvalidName: "An invalid name was encountered.",
        errSecInvalidCertificateRef: "An invalid certificate reference was encountered.",
        errSecInvalidCertificateGroup: "An invalid certificate group was encountered.",
        errSecTagNotFound: "The specified tag was not found.",
        errSecInvalidQuery: "The specified query was not valid.",
        errSecInvalidValue: "An invalid value was detected.",
        errSecCallbackFailed: "A callback has failed.",
        errSecACLDeleteFailed: "An ACL delete operation has failed.",
        errSecACLReplaceFailed: "An ACL replace operation has failed.",
        errSecACLAddFailed: "An ACL add operation has failed.",
        errSecACLChangeFailed: "An ACL change operation has failed.",
        errSecInvalidAccessCredentials: "Invalid access credentials were encountered.",
        errSecInvalidRecord: "An invalid record was encountered.",
        errSecInvalidACL: "An invalid ACL was encountered.",
        errSecInvalidSampleValue: "An invalid sample value was encountered.",
        errSecIncompatibleVersion: "An incompatible version was encountered.",
        errSecPrivilegeNotGranted: "The privilege was not granted.",
        errSecInvalidScope: "An invalid scope was encountered.",
        errSecPVCAlreadyConfigured: "The PVC is already configured.",
        errSecInvalidPVC: "An invalid PVC was encountered.",
        errSecEMMLoadFailed: "The EMM load has failed.",
        errSecEMMUnloadFailed: "The EMM unload has failed.",
        errSecAddinLoadFailed: "The add-in load operation has failed.",
        errSecInvalidKeyRef: "An invalid key was encountered.",
        errSecInvalidKeyHierarchy: "An invalid key hierarchy was encountered.",
        errSecAddinUnloadFailed: "The add-in unload operation has failed.",
        errSecLibraryReferenceNotFound: "A library reference was not found.",
        errSecInvalidAddinFunctionTable: "An invalid add-in function table was encountered.",
        errSecInvalidServiceMask: "An invalid service mask was encountered.",
        errSecModuleNotLoaded: "A module was not loaded.",
        errSecInvalidSubServiceID: "An invalid subservice ID was encountered.",
        errSecAttributeNotInContext: "An attribute was not in the context.",
        errSecModuleManagerInitializeFailed: "A module failed to initialize.",
        errSecModuleManagerNotFound: "A module was not found.",
        errSecEventNotificationCallbackNotFound: "An event notification callback was not found.",
        errSecInputLengthError: "An input length error was encountered.",
        errSecOutputLengthError: "An output length error was encountered.",
        errSecPrivilegeNotSupported: "The privilege is not supported.",
        errSecDeviceError: "A device error was encountered.",
        errSecAttachHandleBusy: "The CSP handle was busy.",
        errSecNotLoggedIn: "You are not logged in.",
        errSecAlgorithmMismatch: "An algorithm mismatch was encountered.",
        errSecKeyUsageIncorrect: "The key usage is incorrect.",
        errSecKeyBlobTypeIncorrect: "The key blob type is incorrect.",
        errSecKeyHeaderInconsistent: "The key header is inconsistent.",
        errSecUnsupportedKeyFormat: "The key header format is not supported.",
        errSecUnsupportedKeySize: "The key size is not supported.",
        errSecInvalidKeyUsageMask: "The key usage mask is not valid.",
        errSecUnsupportedKeyUsageMask: "The key usage mask is not supported.",
        errSecInvalidKeyAttributeMask: "The key attribute mask is not valid.",
        errSecUnsupportedKeyAttributeMask: "The key attribute mask is not supported.",
        errSecInvalidKeyLabel: "The key label is not valid.",
        errSecUnsupportedKeyLabel: "The key label is not supported.",
        errSecInvalidKeyFormat: "The key format is not valid.",
        errSecUnsupportedVectorOfBuffers: "The vector of buffers is not supported.",
        errSecInvalidInputVector: "The input vector is not valid.",
        errSecInvalidOutputVector: "The output vector is not valid.",
        errSecInvalidContext: "An invalid context was encountered.",
        errSecInvalidAlgorithm: "An invalid algorithm was encountered.",
    ]
}
