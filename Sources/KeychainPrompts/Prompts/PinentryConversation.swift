import KeychainCore

/// The Assuan exchange of one pinentry prompt: the greeting, the options and texts, `GETPIN` and its answer.
struct PinentryConversation {
    let channel: AssuanChannel
    let environment: [String: String]

    /// libgpg-error's codes (the low 16 bits of an `ERR` code; the high bits name the error's source) that mean
    /// the user canceled: GPG_ERR_CANCELED, GPG_ERR_NOT_CONFIRMED, GPG_ERR_FULLY_CANCELED.
    private static let cancelCodes: Set<UInt32> = [99, 114, 198]

    /// What pinentry answered to a command.
    private enum Answer {
        case ok
        case error(code: UInt32, text: String)
    }

    /// Runs the conversation up to `GETPIN`'s answer; the PIN goes into `secret`. `program` names pinentry in
    /// messages.
    func getPIN(
        _ request: SecretPromptRequest, into secret: SecretAccumulator, program: String
    ) throws(AssuanChannel.Failure) -> SecretPromptOutcome {
        do throws(AssuanChannel.Failure) {
            guard case .ok = try answer() else { throw .broken("its greeting was an error") }
        } catch {
            guard case .broken(let reason) = error else { throw error }
            throw .broken("it did not greet with OK: \(reason)")
        }
        // Options pinentry may not know: an ERR to one is no reason to stop.
        let options = [
            ("ttyname", environment["GPG_TTY"]), ("ttytype", environment["TERM"]),
            ("lc-ctype", environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"]),
        ]
        for case (let name, let value?) in options where !value.isEmpty {
            _ = try command("OPTION \(name)=\(AssuanEscaping.escaped(PromptText.printable(value)))")
        }
        let text = PromptText(request)
        _ = try command("SETTITLE Keychain")
        try require(command(Self.fitted("SETDESC", text.description)), "SETDESC")
        try require(command(Self.fitted("SETPROMPT", text.label)), "SETPROMPT")
        if let cancel = request.cancelTitle.map(PromptText.printable), !cancel.isEmpty {
            _ = try command(Self.fitted("SETCANCEL", cancel))
        }
        if let retry = text.retry { _ = try command(Self.fitted("SETERROR", retry)) }
        try channel.send("GETPIN")
        switch try answer(data: secret) {
        case .ok:
            if secret.isOverLong {
                secret.removeAll()
                return .unavailable(
                    "the secret entered in pinentry is longer than \(SecretAccumulator.maximumByteCount) bytes; "
                        + "it was not taken")
            }
            do {
                // An empty PIN is a cancel, as an empty line is at the terminal.
                guard let entered = try secret.finish() else { return .canceled }
                return .entered(entered)
            } catch {
                return .unavailable("cannot hold the secret: \(error.message)")
            }
        case .error(let code, let message):
            secret.removeAll()
            if Self.cancelCodes.contains(code & 0xFFFF) { return .canceled }
            return .unavailable("pinentry (\(program)) could not ask: \(message) (error \(code))")
        }
    }

    /// Sends `line` and returns the answer.
    private func command(_ line: String) throws(AssuanChannel.Failure) -> Answer {
        try channel.send(line)
        return try answer()
    }

    private func require(_ answer: Answer, _ name: String) throws(AssuanChannel.Failure) {
        if case .error(let code, let text) = answer {
            throw .broken("it refused \(name): \(text) (error \(code))")
        }
    }

    /// Reads lines up to `OK` or `ERR`: `D` lines are decoded into `data` (and dropped when there is none),
    /// status (`S`) and comment (`#`) lines are skipped, an `INQUIRE` gets an empty answer (`END`).
    private func answer(data: SecretAccumulator? = nil) throws(AssuanChannel.Failure) -> Answer {
        while true {
            enum Line {
                case answer(Answer)
                case skip
                case inquire
            }
            let line = try channel.receive { bytes throws(AssuanChannel.Failure) -> Line in
                if Self.has(bytes, prefix: "D ") {
                    if let data, !AssuanEscaping.decode(UnsafeRawBufferPointer(rebasing: bytes[2...]), into: data) {
                        data.removeAll()
                        throw .broken("it sent a D line with a malformed %-escape")
                    }
                    return .skip
                }
                // Every other line is protocol, not secret: it may become text.
                let text = String(decoding: bytes, as: UTF8.self)
                if text == "OK" || text.hasPrefix("OK ") { return .answer(.ok) }
                if text.hasPrefix("ERR ") { return .answer(try Self.error(text)) }
                if text == "S" || text.hasPrefix("S ") || text.hasPrefix("#") { return .skip }
                if text.hasPrefix("INQUIRE ") { return .inquire }
                throw .broken("it sent a line that is not Assuan: \"\(PromptText.printable(String(text.prefix(80))))\"")
            }
            switch line {
            case .answer(let answer): return answer
            case .skip: continue
            case .inquire: try channel.send("END")
            }
        }
    }

    /// `ERR 83886179 Operation cancelled <Pinentry>` as its code and text.
    private static func error(_ line: String) throws(AssuanChannel.Failure) -> Answer {
        let fields = line.dropFirst(4).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = fields.first, let code = UInt32(first) else {
            throw .broken("it sent an ERR line without a code: \"\(PromptText.printable(String(line.prefix(80))))\"")
        }
        return .error(code: code, text: fields.count > 1 ? String(fields[1]) : "")
    }

    private static func has(_ bytes: UnsafeRawBufferPointer, prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        return prefix.withUTF8Buffer { expected in expected.indices.allSatisfy { bytes[$0] == expected[$0] } }
    }

    /// `command` and `text`, escaped, as one line within Assuan's limit: a text too long loses its end, a whole
    /// character at a time, and ends with an ellipsis.
    static func fitted(_ command: String, _ text: String) -> String {
        let limit = AssuanChannel.maximumLineLength - 1
        var line = "\(command) \(AssuanEscaping.escaped(text))"
        var kept = text
        while line.utf8.count > limit, !kept.isEmpty {
            kept.removeLast(min(kept.count, max(1, (line.utf8.count - limit) / 4)))
            line = "\(command) \(AssuanEscaping.escaped(kept + "…"))"
        }
        return line
    }
}
