import Foundation
import Keychain
import KeychainClient
import KeychainCore
import KeychainSync

#if canImport(Glibc)
    import Glibc
#endif

extension Command {
    /// `sync [--watch]` (ours): one sync pass, or with `--watch` keep following the store and the keychain (the
    /// agent `systemd/keychain-sync.service` runs) until stopped by a signal.
    static let sync = Command(
        name: "sync",
        usage: """
            [--watch]
                --watch  Keep syncing as the store and the keychain change, until stopped
            """,
        help: "Exchange synchronizable items with the other devices of the sync circle.",
        options: OptionSpecification("", long: [.init(name: "watch", takesValue: false)])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.isEmpty else { throw .usage("sync takes no arguments") }
        guard arguments.has(long: "watch") else {
            let lines = SyncProgressLines()
            let outcome = try SyncSession.perform(.syncOnce, session, context: "sync", progress: lines.progress)
            lines.finish()
            guard case .report(let report) = outcome else { throw SyncSession.unexpectedAnswer("sync") }
            print(report, to: session)
            return 0
        }
        let device = try SyncSession.device(session, context: "sync --watch")
        let follower = try SyncSession.run("sync --watch") { () throws(SyncError) -> SyncFollower in
            try device.follow { result in
                switch result {
                // From the follower's thread: stdio's own lock, not the session's console, which one thread owns.
                case .success(let report) where report.received + report.sent + report.applied > 0:
                    writeLine(summary(of: report), to: STDOUT_FILENO)
                case .success: break
                case .failure(let error): writeLine("security: sync: \(error.message)", to: STDERR_FILENO)
                }
            }
        }
        // The passes run on the follower's thread; this one waits for SIGINT or SIGTERM, then stops it cleanly.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var received: Int32 = 0
        sigwait(&signals, &received)
        follower.cancel()
        return 0
    }

    /// `sync-status [--json]` (ours): this device's sync state.
    static let syncStatus = Command(
        name: "sync-status",
        usage: "[--json]\n        --json  Print the state as JSON",
        help: "Show this device's sync state.",
        options: OptionSpecification("", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.isEmpty else { throw .usage("sync-status takes no arguments") }
        guard case .status(let status) = try SyncSession.perform(.status, session, context: "sync-status") else {
            throw SyncSession.unexpectedAnswer("sync-status")
        }
        if arguments.has(long: "json") {
            session.console.print(
                JSONValue.object([
                    "device": .string(status.deviceID), "name": .string(status.deviceName),
                    "membership": .string(status.membership.rawValue), "store": .string(status.storeURL),
                    "circle": .string(status.circleCode),
                    "epoch": .number(Int64(status.epoch)), "members": .number(Int64(status.memberCount)),
                    "items": .number(Int64(status.itemCount)), "pending": .number(Int64(status.pendingCount)),
                    "feedCursor": .number(status.feedCursor), "clock": .date(status.clock.date),
                    "refused": .object(status.refused.mapValues { .string($0) }),
                    "disagreements": .array(
                        status.disagreements.map {
                            .object([
                                "member": .string($0.member), "author": .string($0.author),
                                "sequence": .number($0.sequence),
                            ])
                        }),
                    "unseen": .object(status.unseen.mapValues { .number($0) }),
                ]).text)
        } else {
            session.console.print(
                """
                device: \(status.deviceName) (\(status.deviceID))
                membership: \(status.membership.rawValue)
                store: \(status.storeURL)
                circle: \(status.circleCode)
                epoch: \(status.epoch)
                members: \(status.memberCount)
                items: \(status.itemCount)
                pending: \(status.pendingCount)
                """)
            for (device, reason) in status.refused.sorted(by: { $0.key < $1.key }) {
                session.console.print("refused: \(device): \(reason)")
            }
            for disagreement in status.disagreements {
                session.console.print(
                    "disagrees: \(disagreement.member) holds another entry \(disagreement.sequence) of "
                        + "\(disagreement.author)'s log (the store showed us different histories)")
            }
            for (author, sequence) in status.unseen.sorted(by: { $0.key < $1.key }) {
                session.console.print("unseen: \(author)'s log through \(sequence), read by another member")
            }
        }
        return 0
    }

    /// `sync-devices [--json]` (ours): the circle's devices.
    static let syncDevices = Command(
        name: "sync-devices",
        usage: "[--json]\n        --json  Print the devices as JSON",
        help: "List the devices of the sync circle: members, devices waiting for approval, removed devices.",
        options: OptionSpecification("", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.isEmpty else { throw .usage("sync-devices takes no arguments") }
        guard case .devices(let devices) = try SyncSession.perform(.devices, session, context: "sync-devices") else {
            throw SyncSession.unexpectedAnswer("sync-devices")
        }
        if arguments.has(long: "json") {
            session.console.print(
                JSONValue.array(
                    devices.map { info in
                        .object([
                            "id": .string(info.id), "name": .string(info.name),
                            "membership": .string(info.membership.rawValue), "thisDevice": .bool(info.isThisDevice),
                            "code": .string(info.joinCode),
                        ])
                    }
                ).text)
        } else {
            for info in devices {
                let marker = info.isThisDevice ? " (this device)" : ""
                session.console.print(
                    "\(info.id)  \(info.membership.rawValue)  \(info.joinCode)  \(info.name)\(marker)")
            }
        }
        return 0
    }

    /// `sync-history -a account (-s service | -r server) [-w]` (ours): the kept losing versions of a synced item.
    static let syncHistory = Command(
        name: "sync-history",
        usage: """
            -a account (-s service | -r server) [-w]
                -a  The item's account
                -s  A generic password's service
                -r  An internet password's server
                -w  Print each version's password too
            """,
        help: "Show the kept losing versions of a synced item, newest first.",
        options: OptionSpecification("a:s:r:w")
    ) { arguments, session throws(ToolFailure) in
        guard let account = arguments.value("a") else { throw .usage("the account (-a) is required") }
        let itemClass: ItemClass
        var attributes: ItemAttributes = [.account: .string(account)]
        if let service = arguments.value("s") {
            itemClass = .genericPassword
            attributes[.service] = .string(service)
        } else if let server = arguments.value("r") {
            itemClass = .internetPassword
            attributes[.server] = .string(server)
        } else {
            throw .usage("a service (-s) or a server (-r) is required")
        }
        let query = ItemQuery(itemClass: itemClass, attributes: attributes, synchronizable: .synchronizableOnly)
        let reference: PersistentReference
        do throws(EngineError) {
            // The item as this user's programs see it (through keychaind, in their group).
            let backend = try KeychainBackends.backend(for: KeychainStorage.processDefault)
            guard let item = try backend.copyMatching(query, for: .administrator(defaultGroup: "security")).first
            else { throw EngineError(.itemNotFound, "no synchronizable item matches") }
            reference = item.persistentReference
        } catch {
            throw .failed(status: error.code.rawValue, message: "sync-history: \(error.message)")
        }
        guard
            case .history(let history) = try SyncSession.perform(.history(reference), session, context: "sync-history")
        else { throw SyncSession.unexpectedAnswer("sync-history") }
        var names: [String: String] = [:]
        if case .devices(let devices)? = try? SyncSession.perform(.devices, session, context: "sync-history") {
            names = Dictionary(devices.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        }
        for entry in history {
            let author = names[entry.author] ?? entry.author
            var line = "\(UTCTime(date: entry.clock.date).iso8601)  \(author)  item \(entry.uuid.uuidString)"
            if arguments.has("w") { line += "  password: \(String(decoding: entry.data, as: UTF8.self))" }
            session.console.print(line)
        }
        if history.isEmpty { session.console.print("no losing versions are kept for this item") }
        return 0
    }

    private static func print(_ report: SyncReport, to session: ToolSession) {
        session.console.print(summary(of: report))
        for problem in report.problems { session.console.printError("security: sync: \(problem)") }
    }

    /// Writes a line with one `write(2)` (the follower's thread has no console of its own).
    private static func writeLine(_ text: String, to descriptor: Int32) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    private static func summary(of report: SyncReport) -> String {
        "received \(report.received), sent \(report.sent), applied \(report.applied)"
    }
}
