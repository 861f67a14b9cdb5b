import CSystem

/// A growable byte queue for bytes that may be secret (standard input's lines, standard output's pending text):
/// every byte it ever held is overwritten with zeros once it is no longer needed, where Swift's arrays would leave
/// copies behind: consumed bytes at once, old storage before it is freed when the buffer grows or compacts, and
/// all of it when the buffer is released. Zeroing goes through `explicit_bzero`, which the compiler cannot drop.
///
/// Appending is amortised constant time per byte and consuming is constant time, so reading or writing `n` bytes
/// costs O(n) however they are split into lines.
final class ZeroingBuffer {
    private var storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    /// An empty buffer with room for `capacity` bytes before it first grows.
    init(capacity: Int = 4096) {
        storage = .allocate(byteCount: max(capacity, 16), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        ck_zero(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// How many bytes the buffer holds.
    var count: Int { end - start }

    /// Whether the buffer holds nothing.
    var isEmpty: Bool { end == start }

    /// The bytes held, valid until the buffer next changes.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<end]) }

    /// Appends bytes.
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let room = freeSpace(atLeast: bytes.count)
        room.baseAddress?.copyMemory(from: base, byteCount: bytes.count)
        end += bytes.count
    }

    /// Appends the bytes of an array (or of a string's UTF-8 view).
    func append(contentsOf bytes: some Sequence<UInt8>) {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        guard appended == nil else { return }
        for byte in bytes { append(byte) }
    }

    /// Appends one byte.
    func append(_ byte: UInt8) {
        let room = freeSpace(atLeast: 1)
        room[0] = byte
        end += 1
    }

    /// Free space after the bytes held, at least `count` bytes of it, for a `read` to fill; then call
    /// ``didAppend(_:)`` with how many bytes it wrote there.
    func freeSpace(atLeast count: Int) -> UnsafeMutableRawBufferPointer {
        if storage.count - end < count { makeRoom(for: count) }
        return UnsafeMutableRawBufferPointer(rebasing: storage[end...])
    }

    /// Counts `count` bytes written into ``freeSpace(atLeast:)`` as held.
    func didAppend(_ count: Int) {
        precondition(count >= 0 && end + count <= storage.count, "appended past the free space")
        end += count
    }

    /// Removes the first `count` bytes held, zeroing them.
    func removeFirst(_ count: Int) {
        precondition(count >= 0 && count <= self.count, "removed more than the buffer holds")
        ck_zero(storage.baseAddress.map { $0 + start }, count)
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Removes everything, zeroing it.
    func removeAll() {
        removeFirst(count)
    }

    /// Moves the bytes held to the front when that frees enough room, else into storage twice as large; the
    /// storage left behind is zeroed either way.
    private func makeRoom(for extra: Int) {
        let held = count
        if held + extra <= storage.count / 2, let base = storage.baseAddress {
            (base).copyMemory(from: base + start, byteCount: held)
            ck_zero(base + held, end - held)
        } else {
            let larger = UnsafeMutableRawBufferPointer.allocate(
                byteCount: max(storage.count * 2, held + extra), alignment: 16)
            larger.initializeMemory(as: UInt8.self, repeating: 0)
            if let base = storage.baseAddress, held > 0 {
                larger.baseAddress?.copyMemory(from: base + start, byteCount: held)
            }
            ck_zero(storage.baseAddress, storage.count)
            storage.deallocate()
            storage = larger
        }
        start = 0
        end = held
    }
}
