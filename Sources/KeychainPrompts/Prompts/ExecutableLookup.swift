import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Finds a program as a shell would, without a shell: a name with a slash is a path; any other is looked up in
/// the directories of `PATH`.
enum ExecutableLookup {
    /// The path of the executable regular file `name` names, or `nil`.
    static func find(_ name: String, path: String?) -> String? {
        if name.contains("/") { return isExecutable(name) ? name : nil }
        for directory in (path ?? "").split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = "\(directory)/\(name)"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    private static func isExecutable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }
}
