#if canImport(Glibc)
    import Glibc
#endif

/// The process's standard descriptors and arguments, as the kernel gave them.
enum StandardStreams {
    /// Makes sure descriptors 0, 1 and 2 are open before the tool opens any file. When one was closed, the next
    /// file opened (the keychain's database, its device key) would get its number, and output meant for standard
    /// output would be written into it. A closed one gets `/dev/null` opened the wrong way round (standard input
    /// write-only, the others read-only), so using it fails with `EBADF`, which is then reported, as a closed stream
    /// would fail.
    static func secure() {
        for (descriptor, flags) in [(STDIN_FILENO, O_WRONLY), (STDOUT_FILENO, O_RDONLY), (STDERR_FILENO, O_RDONLY)]
        where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            let opened = open("/dev/null", flags)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
        // A reader that goes away (`security dump-keychain | head`) is then a write error, reported, not a silent
        // death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The arguments after the program name, as bytes: `CommandLine.arguments` would already have replaced bytes
    /// that are not UTF-8 with U+FFFD.
    static func arguments() -> [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
        }
    }
}
