import CSystem

/// What being linked statically means for this program: the release `security` is one static binary (it starts
/// in about half the time), and a static program cannot load shared libraries safely (dlopen would map a second C
/// library): libpq (the PostgreSQL sync store) and glibc's NSS modules are out of its reach.
public enum StaticLinking {
    /// Whether this program is linked statically.
    public static var isStatic: Bool { ck_process_is_static() != 0 }

    /// In a static program, makes user and group lookups read `/etc/passwd` and `/etc/group` only, whatever
    /// `nsswitch.conf` says: glibc would otherwise load a module such as `libnss_systemd` for a name the files lack,
    /// and the program would crash. Does nothing in a dynamic one.
    public static func restrictUserLookupsToFiles() {
        guard isStatic else { return }
        _ = ck_nss_use_files_only()
    }
}
