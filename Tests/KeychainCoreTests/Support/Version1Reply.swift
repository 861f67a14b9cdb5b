import Foundation

@testable import KeychainWire

/// The message of a failure in protocol version 1's JSON form (`{"failure":{"_0":{"code":…,"message":…}}}`, as its
/// `Codable` reply wrote it), or `nil` when `bytes` hold something else.
func version1FailureMessage(_ bytes: [UInt8]) -> String? {
    guard let reply = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
        let failure = reply["failure"] as? [String: Any], let error = failure["_0"] as? [String: Any]
    else { return nil }
    return error["message"] as? String
}

extension DaemonReply {
    /// Whether the reply is the daemon's welcome of this protocol version.
    var isWelcome: Bool {
        guard case .welcome(let version) = self else { return false }
        return version == DaemonCoding.version
    }
}
