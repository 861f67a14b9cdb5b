import CSystem
import KeychainCore

/// keychaind's messages carry secrets (an item's data, a passcode, a file key), so every buffer a message is
/// assembled or received in is wiped once it is done with, in the client and in the daemon: never left whole in
/// freed memory for a later allocation, a core file or a swap page to show.
extension Array where Element == UInt8 {
    /// Makes room for `extra` more bytes, doubling the storage when it must grow and wiping the storage it leaves
    /// (an `append` that grows an array frees the old storage as it is).
    package mutating func reserveWiping(_ extra: Int) {
        guard count + extra > capacity else { return }
        var larger: [UInt8] = []
        larger.reserveCapacity(Swift.max(capacity * 2, count + extra))
        larger.append(contentsOf: self)
        wipe()
        self = larger
    }
}
