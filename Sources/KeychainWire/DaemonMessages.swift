import Foundation
import KeychainCore

/// What a client asks keychaind: one request of the keychain seam (``BackendRequest``: the caller is not part of
/// it, the daemon decides who is calling from the kernel's credentials on each message), or one of the daemon's own.
package enum DaemonRequest: Sendable {
    /// The first message of every connection: the protocol version the client speaks.
    case hello(version: Int)
    /// One request of the keychain seam, carried out on the engine of the keychain it reaches.
    case backend(BackendRequest)
    /// Turns the connection into a notice channel: the daemon sends ``DaemonReply/changed`` whenever the feed of
    /// the caller's keychain may have grown, and accepts nothing more on it.
    case subscribe
    /// Root only: registers the executable at `path` with its entitlements plist.
    case registerApp(path: String, entitlements: Data, allowsInsecureExecution: Bool)
    /// Root only: removes a registration.
    case unregisterApp(path: String)
    /// The registered apps.
    case listApps
    /// Which backend answered and for whom (`security show-keychain-info`).
    case describe
    /// Nothing: answered at once, with no keychain touched (the round trip's own cost, which the bench measures).
    case ping
    /// A sync verb's operation (KeychainSync's `SyncOperation`, as JSON), carried out by the daemon on the keychain
    /// it serves the sender, whose background sync then follows it; answered with the outcome, as JSON, in
    /// ``BackendReply/data(_:)``. With `reportsProgress`, a pass's progress comes first, as ``DaemonReply/progress(_:)``
    /// replies (a few a second at most), then the answer.
    case sync(Data, reportsProgress: Bool)
    /// Opens a write session on this connection: until ``endWriteSession(commit:)``, its adds, deletes and lookups
    /// (``BackendRequest/add(_:)``, …, ``BackendRequest/copyMatching(_:)``, attributes only) run in one transaction
    /// of the keychain, which holds its lock meanwhile (a streamed restore); nothing else is accepted on it. A
    /// session the client leaves (it closes, or says nothing for the idle timeout) is rolled back.
    case beginWriteSession
    /// Ends the write session: its writes commit together (`commit`), or none is kept.
    case endWriteSession(commit: Bool)

    /// The request's kind, as its case is named: what an error may say about it, never its values.
    package var name: String {
        switch self {
        case .hello: "hello"
        case .backend(let request): request.name
        case .subscribe: "subscribe"
        case .registerApp: "registerApp"
        case .unregisterApp: "unregisterApp"
        case .listApps: "listApps"
        case .describe: "describe"
        case .ping: "ping"
        case .sync: "sync"
        case .beginWriteSession: "beginWriteSession"
        case .endWriteSession: "endWriteSession"
        }
    }
}

/// One request with the keychain it is for: `user` names another user's keychain, which only root may do.
/// `caller` is the identity the client's API was given; the daemon ignores it for everyone but root (who may act
/// as any app of any user: administration tools and tests), and decides every other sender's identity itself.
/// `forwarded` names the process a registered service asks for (``ForwardedProcess``): the daemon then answers as
/// it would that process, if the sender is entitled to speak for others.
package struct DaemonEnvelope: Sendable {
    package var user: UInt32?
    package var caller: Caller?
    package var forwarded: ForwardedProcess?
    package var request: DaemonRequest

    package init(
        user: UInt32? = nil, caller: Caller? = nil, forwarded: ForwardedProcess? = nil, request: DaemonRequest
    ) {
        self.user = user
        self.caller = caller
        self.forwarded = forwarded
        self.request = request
    }
}

/// A registered app as `list-apps` shows it.
package struct RegisteredApp: Sendable, Equatable {
    package var path: String
    package var sha256: String
    package var applicationIdentifier: String
    package var accessGroups: [String]
    package var allowsInsecureExecution: Bool

    package init(
        path: String, sha256: String, applicationIdentifier: String, accessGroups: [String],
        allowsInsecureExecution: Bool
    ) {
        self.path = path
        self.sha256 = sha256
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
        self.allowsInsecureExecution = allowsInsecureExecution
    }
}

/// Who the daemon says is calling, and where its keychain is.
package struct DaemonDescription: Sendable, Equatable {
    package var uid: UInt32
    package var applicationIdentifier: String
    package var accessGroups: [String]
    package var isRegisteredApp: Bool

    package init(uid: UInt32, applicationIdentifier: String, accessGroups: [String], isRegisteredApp: Bool) {
        self.uid = uid
        self.applicationIdentifier = applicationIdentifier
        self.accessGroups = accessGroups
        self.isRegisteredApp = isRegisteredApp
    }
}

/// What keychaind answers: the reply of a keychain request, one of the daemon's own, or the error it threw.
package enum DaemonReply: Sendable {
    case welcome(version: Int)
    /// The reply of a ``DaemonRequest/backend(_:)`` request.
    case backend(BackendReply)
    case apps([RegisteredApp])
    case description(DaemonDescription)
    /// On a subscribed connection: the feed may have grown.
    case changed
    case failure(EngineError)
    /// How far a long request is, before its answer (``DaemonRequest/sync(_:reportsProgress:)``): its stage's
    /// number, what is done, and what there is.
    case progress(stage: Int, done: Int, total: Int)
}

extension DaemonReply {
    /// Whether this is a ``progress(stage:done:total:)`` report, which comes before a request's answer.
    package var isProgress: Bool {
        if case .progress = self { return true }
        return false
    }
}
