import Foundation
import KeychainCore

/// Apple's error out-parameter (`UnsafeMutablePointer<Unmanaged<CFError>?>?`): a failure is handed back retained,
/// as the caller's `takeRetainedValue()` expects, with the status as its code in the `NSOSStatusErrorDomain` and a
/// description naming what was wrong. The one way every `Sec…` function of this module reports one.
enum CFErrorOut {
    /// Sets `out` (when given) to `error`, and records its message as the thread's last failure.
    static func report(_ error: EngineError, to out: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
        LastErrorMessage.record(error.message)
        out?.pointee = Unmanaged.passRetained(
            NSError(
                domain: NSOSStatusErrorDomain, code: Int(error.code.rawValue),
                userInfo: [NSLocalizedDescriptionKey: error.message]))
    }
}
