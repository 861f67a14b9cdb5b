// fileprotection-fuzz: a libFuzzer target for the protected-file reader (`make fuzz-files`).
//
// Each input is one of three kinds of file, chosen by its first byte, read in a lock state its second byte picks
// (unlocked, or locked after a first unlock) through every reading path: the whole file, a streaming reader with
// input-chosen read sizes, `unprotect`, and the class read from the header.
//
// - raw: the input's bytes as a file. The header tag cannot be forged, so every path must fail with errSecDecode.
// - retagged: the input's bytes with this keychain's magic, version and keybag identifier written over the start
//   and a valid header tag computed for whatever header they then describe, so the reader goes past the tag into
//   the key and the chunks. Nothing of it can be authentic: every path must fail, with errSecDecode (or
//   errSecInteractionNotAllowed when the named class is locked).
// - mutated: a real protected file (class, chunk size and plaintext from the input) damaged by input-chosen edits
//   (bit flips, cuts, insertions, deletions, swapped or repeated chunks, appended bytes, a re-computed header
//   tag). If the bytes are unchanged, every path must return the plaintext (or errSecInteractionNotAllowed when
//   the class is locked); if they changed at all, every path must fail as above, a streaming reader may have
//   returned only a prefix of the true plaintext, and `unprotect` must have created nothing.
//
// A broken invariant traps (that trap is the finding). Files live in a directory under /dev/shm (tmpfs), so the
// writes' flushes cost nothing. With `--sanitize=fuzzer` libFuzzer supplies `main`; in an ordinary build this
// single file is the main file and does nothing.

import FileProtection
import Foundation
import KeychainCore

/// The keychain, its files and the scratch directory, made once per process.
private final class Harness: Sendable {
    static let passcode = "fuzz"
    let engine: Engine
    let files: [ProtectedFiles]
    let directory: URL

    init() {
        do {
            let engine = try Engine(storage: .inMemory, options: EngineOptions(passcodeCost: .minimum))
            try engine.setPasscode(Self.passcode, current: nil)
            self.engine = engine
            files = try [1024, 2048, 4096].map { try ProtectedFiles(backend: engine, chunkByteCount: $0) }
            let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            directory = URL(fileURLWithPath: base).appendingPathComponent("fileprotection-fuzz-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // libFuzzer ends a timed run with exit(): take the scratch directory with it.
            atexit { try? FileManager.default.removeItem(at: harness.directory) }
        } catch {
            preconditionFailure("the fuzz harness could not start: \(error)")
        }
    }

    var input: URL { directory.appendingPathComponent("input") }
    var output: URL { directory.appendingPathComponent("output") }
}

private let harness = Harness()

/// Reads the fuzzer's bytes as a stream of choices; once they run out every choice is zero.
private struct Choices {
    let bytes: [UInt8]
    var position = 0

    mutating func next() -> Int {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func next16() -> Int { next() | next() << 8 }

    mutating func bytes(upTo limit: Int) -> [UInt8] {
        (0..<(next() % (limit + 1))).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    var rest: [UInt8] { Array(bytes[min(position, bytes.count)...]) }
}

/// What a reading path did: the plaintext it returned, or the status it failed with.
private enum Outcome: Equatable {
    case plaintext(Data)
    case failed(Int32)
}

/// libFuzzer's entry point: one input, read as described at the top of this file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var choices = Choices(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let kind = choices.next() % 3
    let locked = choices.next() % 4 == 0
    setLocked(false)
    switch kind {
    case 0:
        let bytes = choices.rest
        store(Data(bytes))
        setLocked(locked)
        expectRejected(allowLocked: false, choices: &choices)
    case 1:
        store(Data(retagged(choices.rest)))
        setLocked(locked)
        expectRejected(allowLocked: true, choices: &choices)
    default:
        fuzzMutatedFile(&choices, locked: locked)
    }
    return 0
}

private func fuzzMutatedFile(_ choices: inout Choices, locked: Bool) {
    let protection = FileProtectionClass.allCases[choices.next() % 4]
    let files = harness.files[choices.next() % harness.files.count]
    // Up to 4 chunks and a bit; often a whole number of chunks, where the final chunk is a full one.
    var size = choices.next16() % (4 * files.chunkByteCount + 100)
    if choices.next() % 3 == 0 { size -= size % files.chunkByteCount }
    let seed = choices.bytes(upTo: 64)
    let content = Data((0..<size).map { seed.isEmpty ? UInt8(truncatingIfNeeded: $0) : seed[$0 % seed.count] })
    do {
        try files.write(content, to: harness.input, protection: protection)
    } catch {
        preconditionFailure("a protected file could not be written: \(error)")
    }
    let original = load(harness.input)
    let mutated = mutate(original, &choices, chunkByteCount: files.chunkByteCount)
    store(mutated)
    setLocked(locked)
    let readable = !locked || protection == .none || protection == .completeUntilFirstUserAuthentication
    guard mutated == original else {
        expectRejected(allowLocked: !readable, choices: &choices, truth: content)
        return
    }
    for outcome in readAll(&choices) {
        precondition(
            outcome == (readable ? .plaintext(content) : .failed(FileProtectionError.interactionNotAllowed.status)),
            "an intact \(protection) file read as \(outcome)")
    }
    precondition((try? files.protection(of: harness.input)) == protection, "an intact file's class changed")
}

/// Applies up to 4 input-chosen edits to a protected file.
private func mutate(_ original: Data, _ choices: inout Choices, chunkByteCount: Int) -> Data {
    var bytes = [UInt8](original)
    let header = headerByteCount(of: bytes) ?? 0
    let sealedChunk = chunkByteCount + SecretStream.overhead
    for _ in 0..<(choices.next() % 5) {
        let position = bytes.isEmpty ? 0 : choices.next16() % bytes.count
        switch choices.next() % 8 {
        case 0 where !bytes.isEmpty: bytes[position] ^= UInt8(max(1, choices.next()))
        case 1: bytes.removeLast(min(bytes.count, choices.next16() % 300))
        case 2: bytes.insert(contentsOf: choices.bytes(upTo: 32), at: position)
        case 3: bytes.removeSubrange(position..<min(bytes.count, position + choices.next() % 64))
        case 4: bytes += choices.bytes(upTo: 64)
        case 5, 6:
            let chunkCount = max(0, (bytes.count - header + sealedChunk - 1) / sealedChunk)
            guard chunkCount > 1 else { break }
            let first = choices.next() % chunkCount
            let second = choices.next() % chunkCount
            let range = { (index: Int) in
                (header + index * sealedChunk)..<min(bytes.count, header + (index + 1) * sealedChunk)
            }
            let copy = Array(bytes[range(first)])
            if choices.next() % 2 == 0 {
                bytes.replaceSubrange(range(second), with: copy)
            } else {
                bytes.insert(contentsOf: copy, at: range(second).lowerBound)
            }
        default: bytes = retagged(bytes, keepingIdentity: true)
        }
    }
    return Data(bytes)
}

/// The length of the header the bytes describe (from their wrapped-key length field), if they are long enough.
private func headerByteCount(of bytes: [UInt8]) -> Int? {
    guard bytes.count >= 44 else { return nil }
    return 44 + (Int(bytes[42]) | Int(bytes[43]) << 8) + SecretStream.headerByteCount + 32
}

/// The bytes with a valid header tag for the header they describe, written over the tag's place. Unless
/// `keepingIdentity`, the magic, version and keybag identifier are first made this keychain's.
private func retagged(_ input: [UInt8], keepingIdentity: Bool = false) -> [UInt8] {
    var bytes = input
    if !keepingIdentity {
        if bytes.count < 44 { bytes += [UInt8](repeating: 0, count: 44 - bytes.count) }
        bytes.replaceSubrange(0..<5, with: Array("SKPF".utf8) + [1])
        let keybag = (try? harness.engine.keybagStatus().keybagID) ?? UUID()
        withUnsafeBytes(of: keybag.uuid) { bytes.replaceSubrange(10..<26, with: $0) }
        bytes[43] = 0
        // A chunk size from 1 KiB to 64 KiB, so the reader gets past its range check.
        bytes[7] |= 0x04
        bytes[8] = 0
        bytes[9] = 0
    }
    guard let count = headerByteCount(of: bytes), count <= bytes.count else { return bytes }
    guard let tag = try? harness.engine.fileHeaderTag(for: Array(bytes[0..<(count - 32)])) else { return bytes }
    bytes.replaceSubrange((count - 32)..<count, with: tag)
    return bytes
}

/// Every reading path must fail: with errSecDecode, or errSecInteractionNotAllowed when allowed. A streaming
/// reader may have returned only a prefix of `truth` before failing; `unprotect` must have created nothing.
private func expectRejected(allowLocked: Bool, choices: inout Choices, truth: Data = Data()) {
    var allowed: Set<Int32> = [FileProtectionError.decode.status]
    if allowLocked { allowed.insert(FileProtectionError.interactionNotAllowed.status) }
    for outcome in readAll(&choices, truth: truth) {
        guard case .failed(let status) = outcome else {
            preconditionFailure("a damaged file was read as plaintext: \(outcome)")
        }
        precondition(allowed.contains(status), "a damaged file failed with unexpected status \(status)")
    }
    if let status = status(of: { _ = try harness.files[0].protection(of: harness.input) }) {
        precondition(status == FileProtectionError.decode.status, "the class read failed with \(status)")
    }
}

/// Reads the input file through every path. A streaming reader's partial output is checked against `truth`.
private func readAll(_ choices: inout Choices, truth: Data? = nil) -> [Outcome] {
    let files = harness.files[0]
    var outcomes: [Outcome] = []
    outcomes.append(outcome { try files.contents(of: harness.input) })
    let readSize = 1 + choices.next16() % 5000
    var streamed = Data()
    outcomes.append(
        outcome {
            let reader = try files.reader(from: harness.input)
            while let piece = try reader.read(upToCount: readSize) {
                precondition(piece.count <= readSize, "a read returned more than asked")
                streamed.append(piece)
            }
            return streamed
        })
    if let truth {
        precondition(truth.starts(with: streamed), "a streaming reader returned bytes that are not the file's")
    }
    try? FileManager.default.removeItem(at: harness.output)
    let unprotected = outcome {
        try files.unprotect(contentsOf: harness.input, to: harness.output)
        return load(harness.output)
    }
    if case .failed = unprotected {
        precondition(!FileManager.default.fileExists(atPath: harness.output.path), "a failed unprotect left an output")
    }
    try? FileManager.default.removeItem(at: harness.output)
    outcomes.append(unprotected)
    return outcomes
}

private func outcome(_ body: () throws -> Data) -> Outcome {
    do {
        return .plaintext(try body())
    } catch let error as FileProtectionError {
        precondition(!error.message.isEmpty, "an error without a message")
        return .failed(error.status)
    } catch {
        preconditionFailure("an error of another type: \(error)")
    }
}

private func status(of body: () throws -> Void) -> Int32? {
    let result = outcome {
        try body()
        return Data()
    }
    if case .failed(let status) = result { return status }
    return nil
}

/// A file's bytes, read with plain system calls: Foundation's `Data(contentsOf:)` grew this process by a kilobyte
/// or two a call under libFuzzer (not in an ordinary build), which would hide a leak of our own.
private func load(_ url: URL) -> Data {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return Data() }
    defer { close(descriptor) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while case let count = read(descriptor, &buffer, buffer.count), count > 0 {
        data.append(contentsOf: buffer[0..<count])
    }
    return data
}

private func store(_ data: Data) {
    let descriptor = open(harness.input.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(descriptor >= 0, "the fuzz input file could not be written")
    let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    precondition(written == data.count, "the fuzz input file was written short")
}

private func setLocked(_ locked: Bool) {
    if locked {
        harness.engine.lock()
    } else if (try? harness.engine.keybagStatus().isLocked) != false {
        do {
            try harness.engine.unlock(passcode: Harness.passcode)
        } catch {
            preconditionFailure("the fuzz keychain could not be unlocked: \(error)")
        }
    }
}
