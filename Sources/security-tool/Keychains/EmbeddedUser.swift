import Foundation
import KeychainCore
import Security

#if canImport(Glibc)
    import Glibc
#endif

/// Root's `--user NAME` on an embedded keychain (`KEYCHAIN_DAEMON=off`): the tool becomes that user before it opens
/// anything — its uid, primary group and supplementary groups, and its home in `HOME` (root's `XDG_DATA_HOME` is
/// dropped; `KEYCHAIN_HOME` stays, as an explicit choice) — so the keychain directory must be that user's, as the
/// owner checks demand of whoever opens one (OpenSSH's StrictModes), and every file the tool makes is theirs.
/// Irreversible for the process, as `su` is.
enum EmbeddedUser {
    /// Becomes `uid` (named `argument` on the command line), or fails naming why, having changed nothing.
    static func become(_ argument: String, uid: UInt32) throws(ToolFailure) {
        guard let entry = getpwuid(uid) else {
            throw .failed(
                status: errSecParam,
                message:
                    "--user \(argument): uid \(uid) has no entry in the password database, and an embedded keychain is opened as its user (with its groups and home)"
            )
        }
        let name = String(cString: entry.pointee.pw_name)
        let group = entry.pointee.pw_gid
        let home = String(cString: entry.pointee.pw_dir)
        // Groups first: once the uid is the user's, root's right to change them is gone.
        guard initgroups(name, group) == 0, setgid(group) == 0, setuid(uid) == 0 else {
            throw .failed(
                status: errSecIO,
                message: "--user \(argument): cannot become uid \(uid): \(String(cString: strerror(errno)))")
        }
        guard getuid() == uid, geteuid() == uid, getgid() == group, getegid() == group else {
            throw .failed(status: errSecIO, message: "--user \(argument): the process did not become uid \(uid)")
        }
        setenv("HOME", home, 1)
        unsetenv("XDG_DATA_HOME")
    }
}
