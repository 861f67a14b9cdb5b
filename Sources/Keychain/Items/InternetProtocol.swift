/// The protocol of an internet password: Apple's four-character codes (`kSecAttrProtocol`, `ptcl`), with a
/// named constant for each of Apple's values.
///
/// A struct rather than an enum so an item stored by other code with a code not listed here still reads back
/// exactly, and new codes can be added without breaking a caller's `switch`.
public struct InternetProtocol: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The four-character code, such as `"htps"` (some end in a space, as Apple's do: `"ftp "`).
    public let rawValue: String

    /// Creates a protocol from its four-character code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code.
    public var description: String { rawValue }

    /// FTP.
    public static let ftp = InternetProtocol(rawValue: "ftp ")
    /// An FTP account.
    public static let ftpAccount = InternetProtocol(rawValue: "ftpa")
    /// HTTP.
    public static let http = InternetProtocol(rawValue: "http")
    /// IRC.
    public static let irc = InternetProtocol(rawValue: "irc ")
    /// NNTP.
    public static let nntp = InternetProtocol(rawValue: "nntp")
    /// POP3.
    public static let pop3 = InternetProtocol(rawValue: "pop3")
    /// SMTP.
    public static let smtp = InternetProtocol(rawValue: "smtp")
    /// SOCKS.
    public static let socks = InternetProtocol(rawValue: "sox ")
    /// IMAP.
    public static let imap = InternetProtocol(rawValue: "imap")
    /// LDAP.
    public static let ldap = InternetProtocol(rawValue: "ldap")
    /// AppleTalk.
    public static let appleTalk = InternetProtocol(rawValue: "atlk")
    /// AFP.
    public static let afp = InternetProtocol(rawValue: "afp ")
    /// Telnet.
    public static let telnet = InternetProtocol(rawValue: "teln")
    /// SSH.
    public static let ssh = InternetProtocol(rawValue: "ssh ")
    /// FTP over TLS.
    public static let ftps = InternetProtocol(rawValue: "ftps")
    /// HTTPS.
    public static let https = InternetProtocol(rawValue: "htps")
    /// An HTTP proxy.
    public static let httpProxy = InternetProtocol(rawValue: "htpx")
    /// An HTTPS proxy.
    public static let httpsProxy = InternetProtocol(rawValue: "htsx")
    /// An FTP proxy.
    public static let ftpProxy = InternetProtocol(rawValue: "ftpx")
    /// SMB.
    public static let smb = InternetProtocol(rawValue: "smb ")
    /// RTSP.
    public static let rtsp = InternetProtocol(rawValue: "rtsp")
    /// An RTSP proxy.
    public static let rtspProxy = InternetProtocol(rawValue: "rtsx")
    /// DAAP.
    public static let daap = InternetProtocol(rawValue: "daap")
    /// EPPC.
    public static let eppc = InternetProtocol(rawValue: "eppc")
    /// IPP.
    public static let ipp = InternetProtocol(rawValue: "ipp ")
    /// NNTP over TLS.
    public static let nntps = InternetProtocol(rawValue: "ntps")
    /// LDAP over TLS.
    public static let ldaps = InternetProtocol(rawValue: "ldps")
    /// Telnet over TLS.
    public static let telnetS = InternetProtocol(rawValue: "tels")
    /// IMAP over TLS.
    public static let imaps = InternetProtocol(rawValue: "imps")
    /// IRC over TLS.
    public static let ircs = InternetProtocol(rawValue: "ircs")
    /// POP3 over TLS.
    public static let pop3S = InternetProtocol(rawValue: "pops")
}
