/// How an internet password authenticates: Apple's four-character codes (`kSecAttrAuthenticationType`, `atyp`).
///
/// A struct rather than an enum for the same reason as ``InternetProtocol``: unknown codes read back exactly.
public struct AuthenticationType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The four-character code, such as `"form"`.
    public let rawValue: String

    /// Creates an authentication type from its four-character code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code.
    public var description: String { rawValue }

    /// Windows NTLM.
    public static let ntlm = AuthenticationType(rawValue: "ntlm")
    /// Microsoft Network default.
    public static let msn = AuthenticationType(rawValue: "msna")
    /// Distributed Password Authentication.
    public static let dpa = AuthenticationType(rawValue: "dpaa")
    /// Remote Password Authentication.
    public static let rpa = AuthenticationType(rawValue: "rpaa")
    /// HTTP Basic.
    public static let httpBasic = AuthenticationType(rawValue: "http")
    /// HTTP Digest.
    public static let httpDigest = AuthenticationType(rawValue: "httd")
    /// An HTML form.
    public static let htmlForm = AuthenticationType(rawValue: "form")
    /// The protocol's default.
    public static let `default` = AuthenticationType(rawValue: "dflt")
}
