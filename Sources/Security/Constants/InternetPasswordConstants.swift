// The values of kSecAttrProtocol and kSecAttrAuthenticationType (internet passwords), with Apple's raw values.
// Several protocol codes end in a space, as Apple's do.

import Foundation

/// The FTP protocol (`"ftp "`).
public nonisolated(unsafe) let kSecAttrProtocolFTP: CFString = "ftp "
/// The FTPAccount protocol (`"ftpa"`).
public nonisolated(unsafe) let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// The HTTP protocol (`"http"`).
public nonisolated(unsafe) let kSecAttrProtocolHTTP: CFString = "http"
/// The IRC protocol (`"irc "`).
public nonisolated(unsafe) let kSecAttrProtocolIRC: CFString = "irc "
/// The NNTP protocol (`"nntp"`).
public nonisolated(unsafe) let kSecAttrProtocolNNTP: CFString = "nntp"
/// The POP3 protocol (`"pop3"`).
public nonisolated(unsafe) let kSecAttrProtocolPOP3: CFString = "pop3"
/// The SMTP protocol (`"smtp"`).
public nonisolated(unsafe) let kSecAttrProtocolSMTP: CFString = "smtp"
/// The SOCKS protocol (`"sox "`).
public nonisolated(unsafe) let kSecAttrProtocolSOCKS: CFString = "sox "
/// The IMAP protocol (`"imap"`).
public nonisolated(unsafe) let kSecAttrProtocolIMAP: CFString = "imap"
/// The LDAP protocol (`"ldap"`).
public nonisolated(unsafe) let kSecAttrProtocolLDAP: CFString = "ldap"
/// The AppleTalk protocol (`"atlk"`).
public nonisolated(unsafe) let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// The AFP protocol (`"afp "`).
public nonisolated(unsafe) let kSecAttrProtocolAFP: CFString = "afp "
/// The Telnet protocol (`"teln"`).
public nonisolated(unsafe) let kSecAttrProtocolTelnet: CFString = "teln"
/// The SSH protocol (`"ssh "`).
public nonisolated(unsafe) let kSecAttrProtocolSSH: CFString = "ssh "
/// The FTPS protocol (`"ftps"`).
public nonisolated(unsafe) let kSecAttrProtocolFTPS: CFString = "ftps"
/// The HTTPS protocol (`"htps"`).
public nonisolated(unsafe) let kSecAttrProtocolHTTPS: CFString = "htps"
/// The HTTPProxy protocol (`"htpx"`).
public nonisolated(unsafe) let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// The HTTPSProxy protocol (`"htsx"`).
public nonisolated(unsafe) let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// The FTPProxy protocol (`"ftpx"`).
public nonisolated(unsafe) let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// The SMB protocol (`"smb "`).
public nonisolated(unsafe) let kSecAttrProtocolSMB: CFString = "smb "
/// The RTSP protocol (`"rtsp"`).
public nonisolated(unsafe) let kSecAttrProtocolRTSP: CFString = "rtsp"
/// The RTSPProxy protocol (`"rtsx"`).
public nonisolated(unsafe) let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// The DAAP protocol (`"daap"`).
public nonisolated(unsafe) let kSecAttrProtocolDAAP: CFString = "daap"
/// The EPPC protocol (`"eppc"`).
public nonisolated(unsafe) let kSecAttrProtocolEPPC: CFString = "eppc"
/// The IPP protocol (`"ipp "`).
public nonisolated(unsafe) let kSecAttrProtocolIPP: CFString = "ipp "
/// The NNTPS protocol (`"ntps"`).
public nonisolated(unsafe) let kSecAttrProtocolNNTPS: CFString = "ntps"
/// The LDAPS protocol (`"ldps"`).
public nonisolated(unsafe) let kSecAttrProtocolLDAPS: CFString = "ldps"
/// The TelnetS protocol (`"tels"`).
public nonisolated(unsafe) let kSecAttrProtocolTelnetS: CFString = "tels"
/// The IMAPS protocol (`"imps"`).
public nonisolated(unsafe) let kSecAttrProtocolIMAPS: CFString = "imps"
/// The IRCS protocol (`"ircs"`).
public nonisolated(unsafe) let kSecAttrProtocolIRCS: CFString = "ircs"
/// The POP3S protocol (`"pops"`).
public nonisolated(unsafe) let kSecAttrProtocolPOP3S: CFString = "pops"
/// NTLM authentication (`"ntlm"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// Microsoft Network default authentication (`"msna"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// Distributed Password authentication authentication (`"dpaa"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// Remote Password authentication authentication (`"rpaa"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// HTTP Basic authentication (`"http"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// HTTP Digest Access authentication (`"httd"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// HTML form based authentication (`"form"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// The default authentication (`"dflt"`).
public nonisolated(unsafe) let kSecAttrAuthenticationTypeDefault: CFString = "dflt"
