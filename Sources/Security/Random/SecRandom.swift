import Foundation
import KeychainCore

/// A random-number generator, as Apple's SDK names it; there is one, ``kSecRandomDefault``.
public typealias SecRandomRef = OpaquePointer

/// The default (and only) generator: libsodium's `randombytes_buf`, the kernel's CSPRNG.
public nonisolated(unsafe) let kSecRandomDefault: SecRandomRef? = nil

/// Fills `count` bytes at `bytes` with cryptographically secure random bytes and returns `errSecSuccess`.
///
/// `rnd` must be ``kSecRandomDefault`` (`nil`), as on Apple's platforms. A negative count is `errSecParam`, and a
/// generator that cannot be used (libsodium failed to initialise) `errSecInternalComponent`; the buffer is then
/// left unchanged.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    guard count > 0 else { return errSecSuccess }
    do throws(EngineError) {
        var random = try RandomBytes.make(count: count)
        defer { random.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        random.withUnsafeBytes { source in
            if let base = source.baseAddress { bytes.copyMemory(from: base, byteCount: count) }
        }
        return errSecSuccess
    } catch {
        return errSecInternalComponent
    }
}
