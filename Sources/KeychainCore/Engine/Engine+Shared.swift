import Foundation
import Synchronization

extension Engine {
    /// The engine of the keychain in `directory` for this process: opened by the first caller (whose `options`
    /// count), then shared by every module that asks for the same directory — the `Keychain` API, the `Security`
    /// functions and protected files — so they share one lock state. Held weakly: the engine closes when its last
    /// user releases it.
    public static func shared(at directory: URL, options: EngineOptions = EngineOptions()) throws(EngineError) -> Engine
    {
        let key = directory.standardizedFileURL.resolvingSymlinksInPath().path
        return try openEngines.withLock { (engines) throws(EngineError) -> Engine in
            if let engine = engines[key]?.engine { return engine }
            engines = engines.filter { $0.value.engine != nil }
            let engine = try Engine(storage: .directory(URL(fileURLWithPath: key, isDirectory: true)), options: options)
            engines[key] = WeakEngine(engine: engine)
            return engine
        }
    }
}

private struct WeakEngine {
    weak var engine: Engine?
}

/// The engines open in this process, by keychain directory.
private let openEngines = Mutex<[String: WeakEngine]>([:])
