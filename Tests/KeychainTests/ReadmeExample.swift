import Foundation
import Keychain

struct Session: Codable {
    var token: String
    var expiresAt: Date
}

func rememberSession() async throws {
    // Generic passwords of service "com.example.api", readable from the first unlock on.
    let keychain = Keychain(service: "com.example.api").accessibility(.afterFirstUnlock)
    let changes = try keychain.changes()  // every writer's changes, attributes only

    try await keychain.set("s3cret", for: "alice")  // String, Data or any Codable
    try await keychain.set(Session(token: "t0k3n", expiresAt: .now + 3600), for: "session")

    do {
        let password = try await keychain.get("alice")  // nil only when there is no such item
        let session = try await keychain.get("session", as: Session.self)
        print(password ?? "signed out", session?.token ?? "no session")
    } catch .interactionNotAllowed {  // locked: thrown, never a nil that looks signed out
        print("ask for the passcode; the user is still signed in")
    } catch {
        print("keychain error \(error.status): \(error.message)")  // the OSStatus, and a message naming the cause
    }

    for await change in changes.prefix(2) {
        print(change)  // added(GenericPassword(account: "alice", …)), then "session"
    }
}
