import Foundation
import KeychainCore

/// Secrets as they cross the bus: `(session, parameters, value, content type)`, in a session's encryption.
extension SecretService {
    /// A secret as the API carries it: in a plain session the value as it is, in an encrypted one sealed under the
    /// session's key with a fresh IV as its parameters.
    func append(secret: Data, contentType: String, session: String, to reply: BusMessage) throws(BusFailure) {
        let key = try self.session(session)
        let sealed =
            try key.map { (key) throws(BusFailure) in try key.seal(secret) } ?? (parameters: Data(), value: secret)
        try reply.container("r", "oayays") { () throws(BusFailure) in
            try reply.append(session, as: "o")
            try reply.append(bytes: sealed.parameters)
            try reply.append(bytes: sealed.value)
            try reply.append(contentType)
        }
    }

    /// A secret as a client sends it: the value opened with the session's key when the session is encrypted, and
    /// its content type. Anything else than a `(oayays)` is InvalidArgs naming what was expected; an unknown
    /// session is NoSession; a value that does not decrypt is InvalidArgs saying why.
    func readSecret(_ call: BusMessage) throws(BusFailure) -> (value: Data, contentType: String) {
        var secret = (value: Data(), contentType: "text/plain")
        let (type, contents) = call.peek()
        guard type == "r", contents == "oayays" else {
            throw BusFailure(
                name: "org.freedesktop.DBus.Error.InvalidArgs",
                message:
                    "the secret must be a (oayays) structure (session, parameters, value, content type), not \(type)"
                    + (contents.isEmpty ? "" : "(\(contents))"))
        }
        _ = try call.enter("r", "oayays") { () throws(BusFailure) in
            let session = try self.session(try call.readString("o"))
            let parameters = try call.readBytes()
            let value = try call.readBytes()
            if session == nil, !parameters.isEmpty {
                throw BusFailure(
                    name: "org.freedesktop.DBus.Error.InvalidArgs",
                    message: "a secret of a plain session has no parameters (it has \(parameters.count) bytes)")
            }
            secret.value =
                try session.map { (key) throws(BusFailure) in try key.open(value, parameters: parameters) } ?? value
            secret.contentType = try call.readString()
        }
        return secret
    }

    /// The key of an open session (`nil` for a plain one); an unknown session, or one another connection opened, is
    /// Secret.Error.NoSession.
    func session(_ path: String) throws(BusFailure) -> EncryptedSession? {
        guard let session = sessions[path], let owner = sessionOwners[path],
            owner == store.identities.currentSender()
        else {
            throw BusFailure(name: "org.freedesktop.Secret.Error.NoSession", message: "no such session: \(path)")
        }
        return session
    }
}
