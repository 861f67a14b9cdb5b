// Apple's OSStatus values and messages for the key attribute and crypto-operation status codes,
// in the order of Apple's SecBase.h. Each message is the header comment Apple builds SecErrorMessages.strings from.

/// `-67748`: A key attribute was not valid.
public let errSecInvalidAttributeKey: OSStatus = -67748
/// `-67749`: A key attribute was missing.
public let errSecMissingAttributeKey: OSStatus = -67749
/// `-67750`: An init vector attribute was not valid.
public let errSecInvalidAttributeInitVector: OSStatus = -67750
/// `-67751`: An init vector attribute was missing.
public let errSecMissingAttributeInitVector: OSStatus = -67751
/// `-67752`: A salt attribute was not valid.
public let errSecInvalidAttributeSalt: OSStatus = -67752
/// `-67753`: A salt attribute was missing.
public let errSecMissingAttributeSalt: OSStatus = -67753
/// `-67754`: A padding attribute was not valid.
public let errSecInvalidAttributePadding: OSStatus = -67754
/// `-67755`: A padding attribute was missing.
public let errSecMissingAttributePadding: OSStatus = -67755
/// `-67756`: A random number attribute was not valid.
public let errSecInvalidAttributeRandom: OSStatus = -67756
/// `-67757`: A random number attribute was missing.
public let errSecMissingAttributeRandom: OSStatus = -67757
/// `-67758`: A seed attribute was not valid.
public let errSecInvalidAttributeSeed: OSStatus = -67758
/// `-67759`: A seed attribute was missing.
public let errSecMissingAttributeSeed: OSStatus = -67759
/// `-67760`: A passphrase attribute was not valid.
public let errSecInvalidAttributePassphrase: OSStatus = -67760
/// `-67761`: A passphrase attribute was missing.
public let errSecMissingAttributePassphrase: OSStatus = -67761
/// `-67762`: A key length attribute was not valid.
public let errSecInvalidAttributeKeyLength: OSStatus = -67762
/// `-67763`: A key length attribute was missing.
public let errSecMissingAttributeKeyLength: OSStatus = -67763
/// `-67764`: A block size attribute was not valid.
public let errSecInvalidAttributeBlockSize: OSStatus = -67764
/// `-67765`: A block size attribute was missing.
public let errSecMissingAttributeBlockSize: OSStatus = -67765
/// `-67766`: An output size attribute was not valid.
public let errSecInvalidAttributeOutputSize: OSStatus = -67766
/// `-67767`: An output size attribute was missing.
public let errSecMissingAttributeOutputSize: OSStatus = -67767
/// `-67768`: The number of rounds attribute was not valid.
public let errSecInvalidAttributeRounds: OSStatus = -67768
/// `-67769`: The number of rounds attribute was missing.
public let errSecMissingAttributeRounds: OSStatus = -67769
/// `-67770`: An algorithm parameters attribute was not valid.
public let errSecInvalidAlgorithmParms: OSStatus = -67770
/// `-67771`: An algorithm parameters attribute was missing.
public let errSecMissingAlgorithmParms: OSStatus = -67771
/// `-67772`: A label attribute was not valid.
public let errSecInvalidAttributeLabel: OSStatus = -67772
/// `-67773`: A label attribute was missing.
public let errSecMissingAttributeLabel: OSStatus = -67773
/// `-67774`: A key type attribute was not valid.
public let errSecInvalidAttributeKeyType: OSStatus = -67774
/// `-67775`: A key type attribute was missing.
public let errSecMissingAttributeKeyType: OSStatus = -67775
/// `-67776`: A mode attribute was not valid.
public let errSecInvalidAttributeMode: OSStatus = -67776
/// `-67777`: A mode attribute was missing.
public let errSecMissingAttributeMode: OSStatus = -67777
/// `-67778`: An effective bits attribute was not valid.
public let errSecInvalidAttributeEffectiveBits: OSStatus = -67778
/// `-67779`: An effective bits attribute was missing.
public let errSecMissingAttributeEffectiveBits: OSStatus = -67779
/// `-67780`: A start date attribute was not valid.
public let errSecInvalidAttributeStartDate: OSStatus = -67780
/// `-67781`: A start date attribute was missing.
public let errSecMissingAttributeStartDate: OSStatus = -67781
/// `-67782`: An end date attribute was not valid.
public let errSecInvalidAttributeEndDate: OSStatus = -67782
/// `-67783`: An end date attribute was missing.
public let errSecMissingAttributeEndDate: OSStatus = -67783
/// `-67784`: A version attribute was not valid.
public let errSecInvalidAttributeVersion: OSStatus = -67784
/// `-67785`: A version attribute was missing.
public let errSecMissingAttributeVersion: OSStatus = -67785
/// `-67786`: A prime attribute was not valid.
public let errSecInvalidAttributePrime: OSStatus = -67786
/// `-67787`: A prime attribute was missing.
public let errSecMissingAttributePrime: OSStatus = -67787
/// `-67788`: A base attribute was not valid.
public let errSecInvalidAttributeBase: OSStatus = -67788
/// `-67789`: A base attribute was missing.
public let errSecMissingAttributeBase: OSStatus = -67789
/// `-67790`: A subprime attribute was not valid.
public let errSecInvalidAttributeSubprime: OSStatus = -67790
/// `-67791`: A subprime attribute was missing.
public let errSecMissingAttributeSubprime: OSStatus = -67791
/// `-67792`: An iteration count attribute was not valid.
public let errSecInvalidAttributeIterationCount: OSStatus = -67792
/// `-67793`: An iteration count attribute was missing.
public let errSecMissingAttributeIterationCount: OSStatus = -67793
/// `-67794`: A database handle attribute was not valid.
public let errSecInvalidAttributeDLDBHandle: OSStatus = -67794
/// `-67795`: A database handle attribute was missing.
public let errSecMissingAttributeDLDBHandle: OSStatus = -67795
/// `-67796`: An access credentials attribute was not valid.
public let errSecInvalidAttributeAccessCredentials: OSStatus = -67796
/// `-67797`: An access credentials attribute was missing.
public let errSecMissingAttributeAccessCredentials: OSStatus = -67797
/// `-67798`: A public key format attribute was not valid.
public let errSecInvalidAttributePublicKeyFormat: OSStatus = -67798
/// `-67799`: A public key format attribute was missing.
public let errSecMissingAttributePublicKeyFormat: OSStatus = -67799
/// `-67800`: A private key format attribute was not valid.
public let errSecInvalidAttributePrivateKeyFormat: OSStatus = -67800
/// `-67801`: A private key format attribute was missing.
public let errSecMissingAttributePrivateKeyFormat: OSStatus = -67801
/// `-67802`: A symmetric key format attribute was not valid.
public let errSecInvalidAttributeSymmetricKeyFormat: OSStatus = -67802
/// `-67803`: A symmetric key format attribute was missing.
public let errSecMissingAttributeSymmetricKeyFormat: OSStatus = -67803
/// `-67804`: A wrapped key format attribute was not valid.
public let errSecInvalidAttributeWrappedKeyFormat: OSStatus = -67804
/// `-67805`: A wrapped key format attribute was missing.
public let errSecMissingAttributeWrappedKeyFormat: OSStatus = -67805
/// `-67806`: A staged operation is in progress.
public let errSecStagedOperationInProgress: OSStatus = -67806
/// `-67807`: A staged operation was not started.
public let errSecStagedOperationNotStarted: OSStatus = -67807
/// `-67808`: A cryptographic verification failure has occurred.
public let errSecVerifyFailed: OSStatus = -67808
/// `-67809`: The query size is unknown.
public let errSecQuerySizeUnknown: OSStatus = -67809

extension StatusMessages {
    /// Messages of the key attribute and crypto-operation status codes.
    static let keyAttributes: [OSStatus: String] = [
        errSecInvalidAttributeKey: "A key attribute was not valid.",
        errSecMissingAttributeKey: "A key attribute was missing.",
        errSecInvalidAttributeInitVector: "An init vector attribute was not valid.",
        errSecMissingAttributeInitVector: "An init vector attribute was missing.",
        errSecInvalidAttributeSalt: "A salt attribute was not valid.",
        errSecMissingAttributeSalt: "A salt attribute was missing.",
        errSecInvalidAttributePadding: "A padding attribute was not valid.",
        errSecMissingAttributePadding: "A padding attribute was missing.",
        errSecInvalidAttributeRandom: "A random number attribute was not valid.",
        errSecMissingAttributeRandom: "A random number attribute was missing.",
        errSecInvalidAttributeSeed: "A seed attribute was not valid.",
        errSecMissingAttributeSeed: "A seed attribute was missing.",
        errSecInvalidAttributePassphrase: "A passphrase attribute was not valid.",
        errSecMissingAttributePassphrase: "A passphrase attribute was missing.",
        errSecInvalidAttributeKeyLength: "A key length attribute was not valid.",
        errSecMissingAttributeKeyLength: "A key length attribute was missing.",
        errSecInvalidAttributeBlockSize: "A block size attribute was not valid.",
        errSecMissingAttributeBlockSize: "A block size attribute was missing.",
        errSecInvalidAttributeOutputSize: "An output size attribute was not valid.",
        errSecMissingAttributeOutputSize: "An output size attribute was missing.",
        errSecInvalidAttributeRounds: "The number of rounds attribute was not valid.",
        errSecMissingAttributeRounds: "The number of rounds attribute was missing.",
        errSecInvalidAlgorithmParms: "An algorithm parameters attribute was not valid.",
        errSecMissingAlgorithmParms: "An algorithm parameters attribute was missing.",
        errSecInvalidAttributeLabel: "A label attribute was not valid.",
        errSecMissingAttributeLabel: "A label attribute was missing.",
        errSecInvalidAttributeKeyType: "A key type attribute was not valid.",
        errSecMissingAttributeKeyType: "A key type attribute was missing.",
        errSecInvalidAttributeMode: "A mode attribute was not valid.",
        errSecMissingAttributeMode: "A mode attribute was missing.",
        errSecInvalidAttributeEffectiveBits: "An effective bits attribute was not valid.",
        errSecMissingAttributeEffectiveBits: "An effective bits attribute was missing.",
        errSecInvalidAttributeStartDate: "A start date attribute was not valid.",
        errSecMissingAttributeStartDate: "A start date attribute was missing.",
        errSecInvalidAttributeEndDate: "An end date attribute was not valid.",
        errSecMissingAttributeEndDate: "An end date attribute was missing.",
        errSecInvalidAttributeVersion: "A version attribute was not valid.",
        errSecMissingAttributeVersion: "A version attribute was missing.",
        errSecInvalidAttributePrime: "A prime attribute was not valid.",
        errSecMissingAttributePrime: "A prime attribute was missing.",
        errSecInvalidAttributeBase: "A base attribute was not valid.",
        errSecMissingAttributeBase: "A base attribute was missing.",
        errSecInvalidAttributeSubprime: "A subprime attribute was not valid.",
        errSecMissingAttributeSubprime: "A subprime attribute was missing.",
        errSecInvalidAttributeIterationCount: "An iteration count attribute was not valid.",
        errSecMissingAttributeIterationCount: "An iteration count attribute was missing.",
        errSecInvalidAttributeDLDBHandle: "A database handle attribute was not valid.",
        errSecMissingAttributeDLDBHandle: "A database handle attribute was missing.",
        errSecInvalidAttributeAccessCredentials: "An access credentials attribute was not valid.",
        errSecMissingAttributeAccessCredentials: "An access credentials attribute was missing.",
        errSecInvalidAttributePublicKeyFormat: "A public key format attribute was not valid.",
        errSecMissingAttributePublicKeyFormat: "A public key format attribute was missing.",
        errSecInvalidAttributePrivateKeyFormat: "A private key format attribute was not valid.",
        errSecMissingAttributePrivateKeyFormat: "A private key format attribute was missing.",
        errSecInvalidAttributeSymmetricKeyFormat: "A symmetric key format attribute was not valid.",
        errSecMissingAttributeSymmetricKeyFormat: "A symmetric key format attribute was missing.",
        errSecInvalidAttributeWrappedKeyFormat: "A wrapped key format attribute was not valid.",
        errSecMissingAttributeWrappedKeyFormat: "A wrapped key format attribute was missing.",
        errSecStagedOperationInProgress: "A staged operation is in progress.",
        errSecStagedOperationNotStarted: "A staged operation was not started.",
        errSecVerifyFailed: "A cryptographic verification failure has occurred.",
        errSecQuerySizeUnknown: "The query size is unknown.",
    ]
}
