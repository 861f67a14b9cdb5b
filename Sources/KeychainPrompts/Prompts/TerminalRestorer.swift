import KeychainCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// While a prompt has the terminal's echo off, puts the terminal's settings back when a signal arrives (SIGINT,
/// SIGTERM, SIGHUP, SIGQUIT from another process: with `ISIG` off the keyboard sends none), so an interrupted
/// program never leaves the shell without echo; then the signal does what it would have done without the prompt
/// (the previous action is put back and the signal raised again). It also wakes the prompt, which gives up.
///
/// Global state, because a signal handler cannot capture any: one prompt at a time holds the terminal (the
/// ``lock``), and the state lives in memory allocated once, before the first handler is installed, so the handler
/// only reads plain memory and makes async-signal-safe calls.
package enum TerminalRestorer {
    /// The signals that end a prompt.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    /// Held by the one prompt that has the terminal; two at once would read each other's keystrokes.
    package static let lock = Mutex(())

    private struct State {
        var descriptor: Int32 = -1
        var settings = termios()
        var wakeWriter: Int32 = -1
    }

    nonisolated(unsafe) private static let state: UnsafeMutablePointer<State> = {
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
        return state
    }()

    nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
        let actions = UnsafeMutablePointer<sigaction>.allocate(capacity: signals.count)
        actions.initialize(repeating: sigaction(), count: signals.count)
        return actions
    }()

    /// Which of ``signals`` have the handler.
    nonisolated(unsafe) private static let installed: UnsafeMutablePointer<Bool> = {
        let installed = UnsafeMutablePointer<Bool>.allocate(capacity: signals.count)
        installed.initialize(repeating: false, count: signals.count)
        return installed
    }()

    /// Installs the handlers (for the signals that are not ignored), which restore `settings` on `descriptor`.
    /// Returns a descriptor that becomes readable when a signal arrived (`-1` when no pipe could be made: the
    /// terminal is still restored). Call with ``lock`` held, and ``disarm(wakeReader:)`` before releasing it.
    package static func arm(descriptor: Int32, settings: termios) -> Int32 {
        var pipeEnds: [Int32] = [-1, -1]
        let piped = pipe(&pipeEnds) == 0
        if piped {
            for end in pipeEnds {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        }
        state.pointee = State(descriptor: descriptor, settings: settings, wakeWriter: piped ? pipeEnds[1] : -1)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = restoreAndResignal
        sigemptyset(&action.sa_mask)
        for signal in signals { sigaddset(&action.sa_mask, signal) }
        // No SA_RESTART: a blocked call returns EINTR and the prompt looks at the wake descriptor.
        action.sa_flags = 0
        for (index, signal) in signals.enumerated() {
            sigaction(signal, nil, previous + index)
            // An ignored signal ends nothing: the prompt goes on with echo off, as it should.
            installed[index] = !isIgnored(previous[index])
            if installed[index] { sigaction(signal, &action, nil) }
        }
        return piped ? pipeEnds[0] : -1
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Puts the previous actions back and closes `wakeReader` (from ``arm(descriptor:settings:)``).
    package static func disarm(wakeReader: Int32) {
        for (index, signal) in signals.enumerated() where installed[index] {
            sigaction(signal, previous + index, nil)
            installed[index] = false
        }
        let writer = state.pointee.wakeWriter
        state.pointee = State()
        if writer >= 0 { close(writer) }
        if wakeReader >= 0 { close(wakeReader) }
    }

    /// The handler: the terminal's settings back, the prompt woken, the previous action back and the signal
    /// raised again (it stays blocked, hence pending, until this handler returns).
    private static let restoreAndResignal: @convention(c) (Int32) -> Void = { number in
        let savedError = errno
        defer { errno = savedError }
        let current = TerminalRestorer.state
        if current.pointee.descriptor >= 0 {
            tcsetattr(current.pointee.descriptor, TCSANOW, &current.pointee.settings)
        }
        if current.pointee.wakeWriter >= 0 {
            var byte: UInt8 = 1
            _ = write(current.pointee.wakeWriter, &byte, 1)
        }
        for index in 0..<TerminalRestorer.signals.count where TerminalRestorer.signals[index] == number {
            sigaction(number, TerminalRestorer.previous + index, nil)
        }
        raise(number)
    }
}
