// keychain-secret-service: the freedesktop Secret Service (`org.freedesktop.secrets`) on the session bus named by
// DBUS_SESSION_BUS_ADDRESS, served from the keychain every other program of the user finds (KEYCHAIN_HOME, XDG, or
// keychaind), in the foreground, until SIGTERM or SIGINT.
//
//     keychain-secret-service [--replace]
//
// --replace takes the name from another provider; without it, a taken name is a clear error (exit status 1).

import CSDBus
import Foundation
import KeychainClient
import KeychainCore

#if canImport(Glibc)
    import Glibc
#endif

/// Set by SIGTERM and SIGINT: the loop stops, releases the name and exits.
nonisolated(unsafe) var stopRequested: sig_atomic_t = 0

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        usage: keychain-secret-service [--replace]
        Serves the freedesktop Secret Service (org.freedesktop.secrets) on the session bus from the user's keychain.
          --replace  take the name from the Secret Service provider that holds it
        """)
    exit(0)
}
if let unknown = arguments.first(where: { $0 != "--replace" }) {
    FileHandle.standardError.write(Data("keychain-secret-service: unknown option \(unknown)\n".utf8))
    exit(2)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("keychain-secret-service: \(message)\n".utf8))
    exit(1)
}

let backend: any KeychainBackend
do {
    backend = try KeychainBackends.backend(for: KeychainStorage.processDefault)
} catch {
    fail("cannot open the keychain: \(error.message)")
}
// Through keychaind each caller is who keychaind says its process is; an embedded keychain has no wall, and every
// caller shares the collection `login`.
let identities: CallerIdentities
do {
    identities = CallerIdentities(source: try CallerIdentities.source(for: backend))
} catch {
    fail("cannot ask keychaind who this service is: \(error.message)")
}
let service = SecretService(store: SecretItemStore(identities: identities))
let connection: BusConnection
var signals: ChangeSignals?
do {
    connection = try BusConnection.sessionBus()
    connection.identify(into: identities)
    try connection.serve(PortalSecret(identities: identities))
    // Without the feed (keychaind too old to forward, say), only the service's own writes are signalled.
    signals = (try? identities.feedIdentity(busPID: connection.busProcessID())).flatMap { feed in
        try? ChangeSignals(backend: feed.backend, caller: feed.caller)
    }
    identities.recordWritten = { [signals] member, path in signals?.sent(member, path) }
    // Records are kept between calls only while the feed says when another program changes them.
    identities.keepsRecords = signals != nil
    if signals == nil {
        FileHandle.standardError.write(
            Data(
                "keychain-secret-service: the change feed cannot be followed: only this service's writes are signalled\n"
                    .utf8))
    }
    try connection.serve(service, signals: signals)
    // Behind keychaind's wall, another program of the user may not take the name while this service runs (it would
    // receive what apps store; it can still take it while none runs, which the README says).
    try connection.requestName(
        "org.freedesktop.secrets", replacing: arguments.contains("--replace"), replaceable: !identities.isWalled)
} catch {
    fail(error.message)
}
signal(SIGTERM) { _ in stopRequested = 1 }
signal(SIGINT) { _ in stopRequested = 1 }
// A parent may have started this process with the signals blocked (the mask is inherited): unblock the two that stop
// it, so a service manager's SIGTERM always reaches the handler.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
sigprocmask(SIG_UNBLOCK, &stopSignals, nil)
connection.run(
    until: { stopRequested != 0 },
    each: {
        service.completeFinishedPrompts()
        let changed = signals?.flush { member, path, collection in
            service.itemSignal(member, item: path, in: collection)
        }
        if changed == true { identities.forgetRecords() }
    })
connection.close()
