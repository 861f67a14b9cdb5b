import Foundation
import KeychainCore

/// The password of a new item: `-X hex`, `-w password` (or the legacy `-p password` of generic passwords), or,
/// for a trailing `-w`, asked on the terminal (twice) or read from standard input; else empty, as on macOS. Only
/// one of them may be given, and the password may be at most ``InputLimits/secretByteCount`` long.
enum NewItemPassword {
    /// The password's bytes, from the options among `letters` (`-p` is the legacy password of generic passwords
    /// only: an internet password's `-p` is its path). The caller zeroes them.
    static func read(
        _ arguments: ParsedArguments, _ session: ToolSession, letters: String
    ) throws(ToolFailure) -> Data {
        let given = "Xwp".filter { letters.contains($0) && arguments.has($0) }
        guard given.count <= 1 else {
            throw .usage("\(given.map { "-\($0)" }.joined(separator: " and ")) all give the password: give one")
        }
        var secret: Data
        if let hex = arguments.value("X") {
            secret = try decode(hex: hex)
        } else if let password = given.first.flatMap(arguments.value) {
            secret = Data(password.utf8)
        } else if !given.isEmpty {  // a trailing -w (or -p): asked for
            var typed = try session.secrets.newSecret(
                prompt: "password data for new item: ", retypePrompt: "retype password for new item: ")
            defer { SecretReader.zero(&typed) }
            secret = Data(typed)
        } else {
            secret = Data()
        }
        do throws(ToolFailure) {
            try InputLimits.checkSecret(byteCount: secret.count, "the password")
        } catch {
            secret.resetBytes(in: 0..<secret.count)
            throw error
        }
        return secret
    }

    /// Hex digits as bytes; an odd count is read as if it began with a `0`, as macOS's tool reads it. Written in
    /// place into the result (a 16 MiB secret is 32 MiB of digits), which is zeroed when a digit is not valid.
    static func decode(hex: String) throws(ToolFailure) -> Data {
        var digits = Array(hex.utf8)
        defer { SecretReader.zero(&digits) }
        let isOdd = digits.count % 2 == 1
        var bytes = Data(count: (digits.count + 1) / 2)
        let isValid = digits.withUnsafeBufferPointer { input -> Bool in
            bytes.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) -> Bool in
                var from = 0
                var to = 0
                if isOdd {
                    guard let low = UInt8(hexDigit: input[0]) else { return false }
                    output[0] = low
                    from = 1
                    to = 1
                }
                while from < input.count {
                    guard let high = UInt8(hexDigit: input[from]), let low = UInt8(hexDigit: input[from + 1]) else {
                        return false
                    }
                    output[to] = high << 4 | low
                    from += 2
                    to += 1
                }
                return true
            }
        }
        guard isValid else {
            bytes.resetBytes(in: 0..<bytes.count)
            throw .usage("-X must specify valid hex digits")
        }
        return bytes
    }
}
