import Foundation
import KeychainCore
import KeychainPrompts

#if canImport(Glibc)
    import Glibc
#endif

/// The Secret portal's backend (`org.freedesktop.impl.portal.Secret` at `/org/freedesktop/portal/desktop`), which
/// xdg-desktop-portal calls to hand a sandboxed app the secret it encrypts its own store with: `RetrieveSecret`
/// writes the app's secret — 64 random bytes made on first request, kept as an item of the portal's group — to the
/// file descriptor the portal passes.
///
/// Through keychaind only a caller whose identity holds ``portalGroup`` is answered (xdg-desktop-portal,
/// registered with that group): any other program could otherwise ask for any app's secret by naming it. The
/// secrets live in that group, which no other caller reaches. An empty app id (a program outside any sandbox) is
/// refused: it names no app to keep a secret for.
final class PortalSecret {
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.impl.portal.Secret"
    /// The access group of the portal, and of the secrets it hands out.
    static let portalGroup = "swift-keychain.portal"
    /// The service of a portal secret's item (its account is the app id).
    static let itemService = "org.freedesktop.impl.portal.Secret"

    let identities: CallerIdentities

    init(identities: CallerIdentities) {
        self.identities = identities
    }

    /// Answers one call to the portal's object.
    func handle(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        if call.interface == SecretService.propertiesInterface, call.member == "Get" || call.member == "GetAll" {
            return try version(call, reply: reply)
        }
        guard call.interface == Self.interface, call.member == "RetrieveSecret" else {
            throw .unknownMethod(call)
        }
        _ = try call.readString("o")  // the request handle: nothing here outlives the call, so nothing to close
        let applicationID = try call.readString()
        let descriptor = try call.readFileDescriptor()
        guard !applicationID.isEmpty else {
            throw .accessDenied("RetrieveSecret: an empty app id names no sandboxed app to keep a secret for")
        }
        let secret = try retrieve(for: applicationID)
        try write(secret, to: descriptor)
        try reply.append(UInt32(0))  // the portal's "success"
        try reply.container("a", "{sv}") {}
    }

    /// The app's secret, made and stored on its first request.
    private func retrieve(for applicationID: String) throws(BusFailure) -> Data {
        do throws(EngineError) {
            let identity = try identities.current()
            if identities.isWalled, !identity.caller.accessGroups.contains(Self.portalGroup) {
                throw EngineError(
                    .missingEntitlement,
                    "RetrieveSecret: only xdg-desktop-portal, registered with the group \(Self.portalGroup), may ask")
            }
            let group = identities.isWalled ? Self.portalGroup : identity.caller.defaultGroup
            let attributes: ItemAttributes = [
                .service: .string(Self.itemService), .account: .string(applicationID), .accessGroup: .string(group),
            ]
            let query = ItemQuery(itemClass: .genericPassword, attributes: attributes, returning: .data)
            if let found = try? identity.backend.copyMatching(query, for: identity.caller).first?.data {
                return found
            }
            var secret = Data()
            for _ in 0..<2 { try SecretKey.random().withUnsafeBytes { secret.append(contentsOf: $0) } }
            var stored = attributes
            stored[.accessible] = .string(ProtectionClass.afterFirstUnlockThisDeviceOnly.rawValue)
            stored[.label] = .string("Secret portal: \(applicationID)")
            do throws(EngineError) {
                _ = try identity.backend.add(
                    NewItem(itemClass: .genericPassword, attributes: stored, data: secret), for: identity.caller)
                return secret
            } catch  where error.code == .duplicateItem {
                // Another request made it first: that one is the app's secret.
                guard let found = try identity.backend.copyMatching(query, for: identity.caller).first?.data else {
                    throw error
                }
                return found
            }
        } catch {
            throw error.code == .missingEntitlement
                ? .accessDenied(error.message)
                : BusFailure(name: "org.freedesktop.DBus.Error.Failed", message: error.message)
        }
    }

    /// Writes all of `secret` to the portal's descriptor (a pipe to the app).
    private func write(_ secret: Data, to descriptor: Int32) throws(BusFailure) {
        if let failure = secret.withUnsafeBytes({ DescriptorWriting.writeAll($0, to: descriptor) }) {
            throw BusFailure(
                name: "org.freedesktop.DBus.Error.Failed",
                message: "RetrieveSecret: cannot write the secret: \(String(cString: strerror(failure)))")
        }
    }

    /// The interface's one property, `version` (1).
    private func version(_ call: BusMessage, reply: BusMessage) throws(BusFailure) {
        let interface = try call.readString()
        guard interface == Self.interface else { throw .noSuchObject("\(Self.path) \(interface)") }
        if call.member == "Get" {
            guard try call.readString() == "version" else { throw .unknownMethod(call) }
            try reply.container("v", "u") { () throws(BusFailure) in try reply.append(UInt32(1)) }
        } else {
            try reply.container("a", "{sv}") { () throws(BusFailure) in
                try reply.container("e", "sv") { () throws(BusFailure) in
                    try reply.append("version")
                    try reply.container("v", "u") { () throws(BusFailure) in try reply.append(UInt32(1)) }
                }
            }
        }
    }
}
