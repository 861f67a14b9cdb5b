import Foundation

/// Adds made inside one write transaction: all of them are committed together, or none is.
///
/// The engine's own form of a batch, for its benchmark, which times each add inside one. Every other client gives
/// a backend the whole batch as a value (`add(_ items: [NewItem], for:)`), which a daemon can receive in one
/// message.
///
/// A batch is valid only inside the closure passed to ``Engine/batch(for:_:)``; using it afterwards throws
/// ``EngineError/Code/param``. It holds the engine's lock, so other threads wait until the closure returns.
public final class ItemBatch {
    private let engine: Engine
    private let caller: Caller
    private let state: EngineState
    fileprivate var isOpen = true

    fileprivate init(engine: Engine, caller: Caller, state: EngineState) {
        self.engine = engine
        self.caller = caller
        self.state = state
    }

    /// Adds an item with the same rules as ``Engine/add(_:for:)-(NewItem,_)``; it becomes durable when the batch commits.
    @discardableResult
    public func add(_ newItem: NewItem) throws(EngineError) -> Item {
        guard isOpen else { throw .param("the batch was used after its transaction ended") }
        let (item, stored) = try engine.prepare(newItem, for: caller, in: state)
        try engine.insert(stored, item: item, in: state)
        return item
    }
}

extension Engine {
    /// Runs `body` in one write transaction: every add it makes commits together, or, if it throws, none does.
    public func batch<Result: Sendable>(
        for caller: Caller, _ body: (ItemBatch) throws(EngineError) -> Result
    ) throws(EngineError) -> Result {
        try state.withLock { (state) throws(EngineError) -> Result in
            try state.checkServable()
            let batch = ItemBatch(engine: self, caller: caller, state: state)
            defer { batch.isOpen = false }
            return try state.database.writeTransaction { () throws(EngineError) -> Result in try body(batch) }
        }
    }
}
