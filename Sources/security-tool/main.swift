// security: the macOS `security` tool's keychain verbs, on swift-keychain. See SecurityTool for what it does.
import Foundation
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

// First, before any secret is read: a core dump would write the tool's memory, secrets and all, to disk.
do throws(EngineError) {
    try ProcessHardening.disableCoreDumps()
} catch {
    Console.writeAll(Array("security: warning: \(error.message)\n".utf8), to: STDERR_FILENO)
}
StandardStreams.secure()
StaticLinking.restrictUserLookupsToFiles()
exit(SecurityTool.run(rawArguments: StandardStreams.arguments()))
