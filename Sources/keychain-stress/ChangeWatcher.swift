import Foundation
import Keychain

/// `keychain-stress watch DIR`: follows `Keychain.changes(matching:)` for every generic password of every group
/// (an identity entitled to `*`) and prints each change as `KIND ACCOUNT` (unbuffered), after a first `ready`
/// line once the stream exists. For the cross-process change-feed tests; runs until killed.
func runWatcher(directory: URL) async throws {
    let identity = try ApplicationIdentity(applicationIdentifier: "TEAM.watcher", accessGroups: ["TEAM.watcher", "*"])
    let keychain = Keychain(service: "watcher", directory: directory, identity: identity)
    let changes = try keychain.changes(matching: GenericPassword.Query())
    say("ready")
    for await change in changes {
        switch change {
        case .added(let item): say("added \(item.account)")
        case .updated(let item): say("updated \(item.account)")
        case .removed(let item): say("removed \(item.account)")
        }
    }
}
