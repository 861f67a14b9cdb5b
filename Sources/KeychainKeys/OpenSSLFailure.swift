import CLibCrypto
import KeychainCore

/// The failures of the key layer, as the engine's errors: what was being done, and OpenSSL's own reason.
enum OpenSSLFailure {
    /// An error for a libcrypto call that failed while doing `what`, with the reasons OpenSSL queued (the queue is
    /// emptied, so a later failure does not report this one's).
    static func error(_ code: EngineError.Code, _ what: String) -> EngineError {
        var reasons: [String] = []
        while case let packed = ERR_get_error(), packed != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(packed, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return EngineError(code, reasons.isEmpty ? what : "\(what) (\(reasons.joined(separator: "; ")))")
    }

    /// Throws ``error(_:_:)`` with `code` unless a libcrypto call returned 1 (its success value).
    static func check(_ result: Int32, _ code: EngineError.Code, _ what: String) throws(EngineError) {
        guard result == 1 else { throw error(code, what) }
    }

    /// ``check(_:_:_:)`` for a call that fails only when something inside libcrypto does.
    static func check(_ result: Int32, _ what: String) throws(EngineError) {
        try check(result, .internalComponent, what)
    }
}
