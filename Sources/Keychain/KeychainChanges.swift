/// The changes to the items a query matches, made by any writer — this process through any ``Keychain`` value or the
/// `Security` functions, other processes (the `security` tool, other apps), the passcode's removal and the erase
/// after too many wrong passcodes — in the order the keychain recorded them.
///
/// The stream reads the keychain's change feed, which carries attributes only and needs nothing unlocked. Changes
/// made through this process's `Keychain` values are reported before the write returns, each with the attributes it
/// left. Other writers' changes arrive within milliseconds (the engine watches the keychain's files), each with the
/// item's attributes when the stream reads it; an item another writer added and removed again before then is
/// skipped. Items of access groups the identity lacks are never reported.
///
/// Every change is reported once, with the item's attributes as soon as they can be read. An add or update of an
/// item whose class is locked in this process is held, in order, and reported after the unlock (an unlock through
/// ``Keychain/unlock(passcode:)-5zbdm`` lets the stream catch up before it returns); a removal of an item the stream knows
/// is reported at once, locked or not (the passcode's removal and the erase included). A stream started while
/// locked learns the items it matches at the unlock and reports every later change to them; an item it never could
/// read (added and removed while locked, or removed before that first unlock) cannot be matched, and is not
/// reported.
///
/// The sequence starts when it is created (changes made before iteration begins are kept), never finishes on its
/// own, and ends when the iterating task is cancelled or the sequence is dropped. It keeps the keychain open while
/// it exists.
///
/// Buffering is bounded: at most ``bufferLimit`` changes wait for a slow consumer; past that the oldest are
/// dropped, so a consumer that falls that far behind should read the items again.
public struct KeychainChanges<Item: Sendable>: AsyncSequence, Sendable {
    /// A change.
    public typealias Element = KeychainChange<Item>
    /// Iterating never throws.
    public typealias Failure = Never

    /// How many changes wait for the consumer at most before the oldest are dropped.
    public static var bufferLimit: Int { 1_000 }

    let stream: AsyncStream<Element>
    let connection: Connection

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), connection: connection)
    }

    /// The iterator over changes.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        /// Keeps the keychain, and so its observers, alive while iterating.
        let connection: Connection

        /// The next change, waiting for one.
        public mutating func next() async -> Element? {
            await base.next()
        }

        /// The next change, waiting for one on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }
}
