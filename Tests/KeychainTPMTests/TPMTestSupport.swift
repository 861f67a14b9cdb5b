import KeychainTPM
import TestSupport
import Testing

/// Whether the TPM tests can run here: swtpm installed and libtss2 loadable; else why not.
enum TPMTests {
    static let skipReason: String? =
        SoftwareTPM.unavailableReason
        ?? TPMContext.loadFailure().map { "skipped: the TPM software stack is not installed (libtss2-dev): \($0)" }
    static let available = skipReason == nil
    /// Why the tests skip, as the test report shows it.
    static let skipComment = Comment(rawValue: skipReason ?? "")
}
