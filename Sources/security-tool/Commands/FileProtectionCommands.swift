import FileProtection
import Foundation

extension Command {
    /// `protect-file [-c class] [-k keychain] input output`: writes `output` as a protected file (DESIGN §7) holding
    /// `input`'s bytes, streamed in constant memory, atomically and 0600. Classes take Foundation's names.
    static let protectFile = Command(
        name: "protect-file",
        usage: """
            [-c class] [-k keychain] input output
                -c  Protection class: none, complete, completeUnlessOpen or completeUntilFirstUserAuthentication
                    (the default, as on iOS)
                -k  The keychain whose keybag protects the file (default: the default keychain)
            """,
        help: "Write a protected copy of a file in a data protection class.", options: OptionSpecification("c:k:")
    ) { arguments, session throws(ToolFailure) in
        let (input, output) = try Self.inputAndOutput(arguments)
        let protection: FileProtectionClass
        do throws(FileProtectionError) {
            protection = try arguments.value("c").map(FileProtectionClass.init(named:)) ?? .default
        } catch {
            throw .usage(error.message)
        }
        let context = "protect-file \(input.path)"
        let access = try ProtectedFileAccess(arguments, session, context: context)
        let line = ProgressLine.onTerminal("protected", unit: .bytes)
        try access.run(context) { () throws(FileProtectionError) in
            try access.files.protect(contentsOf: input, to: output, protection: protection) { done, total in
                line?.update(done, of: total)
            }
        }
        line?.finish()
        return 0
    }

    /// `unprotect-file [-k keychain] input output`: writes `input`'s plaintext to `output` (0600, atomically), only
    /// once the whole file has been authenticated.
    static let unprotectFile = Command(
        name: "unprotect-file",
        usage: """
            [-k keychain] input output
                -k  The keychain whose keybag protects the file (default: the default keychain)
            """,
        help: "Write the plaintext of a protected file.", options: OptionSpecification("k:")
    ) { arguments, session throws(ToolFailure) in
        let (input, output) = try Self.inputAndOutput(arguments)
        let context = "unprotect-file \(input.path)"
        let access = try ProtectedFileAccess(arguments, session, context: context)
        let line = ProgressLine.onTerminal("unprotected", unit: .bytes)
        try access.run(context) { () throws(FileProtectionError) in
            try access.files.unprotect(contentsOf: input, to: output) { done, total in line?.update(done, of: total) }
        }
        line?.finish()
        return 0
    }

    /// `file-protection [-k keychain] [--json] file`: prints a protected file's class by Foundation's name (readable
    /// in every lock state).
    static let fileProtection = Command(
        name: "file-protection",
        usage: """
            [-k keychain] [--json] file
                -k      The keychain whose keybag protects the file (default: the default keychain)
                --json  Print the file and its class as JSON
            """,
        help: "Show the data protection class of a protected file.", options: OptionSpecification("k:", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1 else {
            throw .usage("one file, but \(arguments.positionals.count) were given")
        }
        let file = URL(fileURLWithPath: arguments.positionals[0])
        let context = "file-protection \(file.path)"
        let access = try ProtectedFileAccess(arguments, session, context: context)
        let protection = try access.run(context) { () throws(FileProtectionError) in
            try access.files.protection(of: file)
        }
        if arguments.has(long: "json") {
            session.console.print(
                JSONValue.object(["file": .string(file.path), "protection": .string(protection.rawValue)]).text)
        } else {
            session.console.print(protection.rawValue)
        }
        return 0
    }

    /// The two positional arguments of the copying verbs.
    private static func inputAndOutput(_ arguments: ParsedArguments) throws(ToolFailure) -> (URL, URL) {
        guard arguments.positionals.count == 2 else {
            throw .usage("an input and an output file, but \(arguments.positionals.count) arguments were given")
        }
        return (URL(fileURLWithPath: arguments.positionals[0]), URL(fileURLWithPath: arguments.positionals[1]))
    }
}
