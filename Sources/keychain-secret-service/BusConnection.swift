import CSDBus
import Foundation
import KeychainCore

/// The session bus connection (sd-bus), the Secret Service's objects on it and the loop that serves them.
final class BusConnection {
    private let bus: OpaquePointer
    private var slots: [OpaquePointer?] = [nil, nil, nil, nil]
    private var handler: Unmanaged<SecretService>?
    private var portalHandler: Unmanaged<PortalSecret>?

    private init(bus: OpaquePointer) { self.bus = bus }

    /// The user's session bus: the one DBUS_SESSION_BUS_ADDRESS names, or — started in secure-execution mode (a
    /// registered service, setgid) — only the user's bus at `/run/user/UID/bus`, whatever the environment says: a
    /// program that started the service could otherwise point it at a bus of its own, which would lie about who
    /// sent each call.
    static func sessionBus() throws(BusFailure) -> BusConnection {
        var bus: OpaquePointer?
        let status: Int32
        if ProcessEnvironment.isSecureExecution {
            status = userBus(&bus, address: "unix:path=/run/user/\(getuid())/bus")
        } else {
            status = sd_bus_open_user(&bus)
        }
        guard status >= 0, let bus else {
            throw BusFailure(
                name: "", message: "cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS): \(errnoText(status))")
        }
        return BusConnection(bus: bus)
    }

    /// A client connection to the bus at `address`.
    private static func userBus(_ bus: inout OpaquePointer?, address: String) -> Int32 {
        var status = sd_bus_new(&bus)
        guard status >= 0, let created = bus else { return status }
        status = sd_bus_set_address(created, address)
        if status >= 0 { status = sd_bus_set_bus_client(created, 1) }
        if status >= 0 { status = sd_bus_start(created) }
        if status < 0 {
            sd_bus_unref(created)
            bus = nil
        }
        return status
    }

    /// Tells `identities` who sends the call being answered, as the bus says: its unique name, and the process
    /// behind that name (the bus daemon read it from the kernel when the caller connected).
    func identify(into identities: CallerIdentities) {
        let bus = self.bus
        identities.currentSender = {
            guard let message = sd_bus_get_current_message(bus), let sender = sd_bus_message_get_sender(message) else {
                return nil
            }
            return String(cString: sender)
        }
        identities.processID = { name in
            var credentials: OpaquePointer?
            guard sd_bus_get_name_creds(bus, name, UInt64(SD_BUS_CREDS_PID), &credentials) >= 0, let credentials
            else { return nil }
            defer { sd_bus_creds_unref(credentials) }
            var pid: pid_t = 0
            guard sd_bus_creds_get_pid(credentials, &pid) >= 0, pid > 0 else { return nil }
            return pid
        }
        identities.connectionGroups = { name in BusConnection.connectionGroups(of: name, on: bus) }
    }

    /// The groups the bus daemon recorded for `name` when it connected (`UnixGroupIDs` of
    /// `GetConnectionCredentials`: the effective group and the supplementary ones, from the kernel), asked of the
    /// bus itself: sd-bus's credentials would fill missing fields from `/proc`, which tells the groups now.
    private static func connectionGroups(of name: String, on bus: OpaquePointer) -> [UInt32]? {
        var call: OpaquePointer?
        guard
            sd_bus_message_new_method_call(
                bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "GetConnectionCredentials") >= 0, let call
        else { return nil }
        defer { sd_bus_message_unref(call) }
        var reply: OpaquePointer?
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        guard (try? BusMessage(handle: call).append(name)) != nil, sd_bus_call(bus, call, 0, &error, &reply) >= 0,
            let reply
        else { return nil }
        defer { sd_bus_message_unref(reply) }
        let message = BusMessage(handle: reply)
        var groups: [UInt32]?
        try? message.readArray(of: "{sv}") { () throws(BusFailure) in
            _ = try message.enter("e", "sv") { () throws(BusFailure) in
                guard try message.readString() == "UnixGroupIDs" else { return try message.skip("v") }
                _ = try message.enter("v", "au") { () throws(BusFailure) in groups = try message.readGroups() }
            }
        }
        return groups
    }

    /// The bus daemon's process id, as the kernel gave it when this connection was made.
    func busProcessID() -> Int32? {
        var credentials: OpaquePointer?
        guard sd_bus_get_owner_creds(bus, UInt64(SD_BUS_CREDS_PID), &credentials) >= 0, let credentials else {
            return nil
        }
        defer { sd_bus_creds_unref(credentials) }
        var pid: pid_t = 0
        guard sd_bus_creds_get_pid(credentials, &pid) >= 0, pid > 0 else { return nil }
        return pid
    }

    /// Serves `service`'s objects under `/org/freedesktop/secrets`; its own writes are signalled as they happen
    /// (and noted in `signals`, which signals the feed's other writes).
    func serve(_ service: SecretService, signals: ChangeSignals?) throws(BusFailure) {
        // The change feed will report the service's own writes too: what was signalled is not signalled again.
        service.emit = { member, item in signals?.sent(member, item) }
        // Signals from the feed may come before any call.
        service.bus = bus
        let retained = Unmanaged.passRetained(service)
        handler = retained
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let service = Unmanaged<SecretService>.fromOpaque(userdata).takeUnretainedValue()
            return BusConnection.dispatch(BusMessage(handle: message), to: service)
        }
        // The root object itself, and every other path: objects under it (collections, items, sessions, prompts),
        // and outside it too, so that an unknown path is the Secret Service's NoSuchObject (which libsecret and
        // secretstorage read as "no such item"), not sd-bus's UnknownObject.
        var status = sd_bus_add_object(bus, &slots[0], SecretService.root, callback, retained.toOpaque())
        if status >= 0 {
            status = sd_bus_add_fallback(bus, &slots[1], "/", callback, retained.toOpaque())
        }
        guard status >= 0 else { throw BusFailure(name: "", message: "cannot serve objects: \(errnoText(status))") }
        // A connection that leaves the bus leaves its sessions and prompts behind: the bus says when.
        let left: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let service = Unmanaged<SecretService>.fromOpaque(userdata).takeUnretainedValue()
            let signal = BusMessage(handle: message)
            guard let name = try? signal.readString(), let _ = try? signal.readString(),
                let newOwner = try? signal.readString(), name.hasPrefix(":"), newOwner.isEmpty
            else { return 0 }
            service.connectionLeft(name)
            return 0
        }
        status = sd_bus_match_signal(
            bus, &slots[3], "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            "NameOwnerChanged", left, retained.toOpaque())
        guard status >= 0 else {
            throw BusFailure(name: "", message: "cannot follow the bus's connections: \(errnoText(status))")
        }
    }

    /// Serves the Secret portal's backend at `/org/freedesktop/portal/desktop`.
    func serve(_ portal: PortalSecret) throws(BusFailure) {
        let retained = Unmanaged.passRetained(portal)
        portalHandler = retained
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let portal = Unmanaged<PortalSecret>.fromOpaque(userdata).takeUnretainedValue()
            return BusConnection.answer(BusMessage(handle: message)) { (call, reply) throws(BusFailure) in
                try portal.handle(call, reply: reply)
            }
        }
        let status = sd_bus_add_object(bus, &slots[2], PortalSecret.path, callback, retained.toOpaque())
        guard status >= 0 else { throw BusFailure(name: "", message: "cannot serve the portal: \(errnoText(status))") }
    }

    /// Owns `name`, taking it from its owner when `replacing`; a name another provider holds is an error saying so.
    /// Another may take it in turn (`--replace`) only when `replaceable`: a walled service's name is not, since
    /// whoever owned it would receive what every app stores.
    func requestName(_ name: String, replacing: Bool, replaceable: Bool = true) throws(BusFailure) {
        var flags = replaceable ? UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT) : 0
        if replacing { flags |= UInt64(SD_BUS_NAME_REPLACE_EXISTING) }
        let status = sd_bus_request_name(bus, name, flags)
        if status == -EEXIST {
            throw BusFailure(
                name: "",
                message: "\(name) is taken by another Secret Service provider on this bus (gnome-keyring, KWallet, "
                    + "KeePassXC …): stop it, or start with --replace")
        }
        guard status >= 0 else { throw BusFailure(name: "", message: "cannot own \(name): \(errnoText(status))") }
    }

    /// Serves calls until `stop` answers true (checked at least every quarter second), calling `each` between
    /// calls and at least every quarter second.
    func run(until stop: () -> Bool, each: () -> Void = {}) {
        while !stop() {
            each()
            let processed = sd_bus_process(bus, nil)
            if processed < 0 { break }
            if processed > 0 { continue }
            _ = sd_bus_wait(bus, 250_000)
        }
    }

    /// Gives up the name and closes the connection.
    func close() {
        _ = sd_bus_release_name(bus, "org.freedesktop.secrets")
        _ = sd_bus_flush(bus)
        for slot in slots { sd_bus_slot_unref(slot) }
        handler?.release()
        portalHandler?.release()
        sd_bus_flush_close_unref(bus)
    }

    /// Answers one call: the method's return, or the error it raised.
    private static func dispatch(_ call: BusMessage, to service: SecretService) -> Int32 {
        answer(call) { (call, reply) throws(BusFailure) in try service.handle(call, reply: reply) }
    }

    /// Sends the method return `body` fills, or the error it raised.
    private static func answer(
        _ call: BusMessage, _ body: (BusMessage, BusMessage) throws(BusFailure) -> Void
    ) -> Int32 {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(call.handle, &reply) >= 0, let reply else { return -ENOMEM }
        defer { sd_bus_message_unref(reply) }
        do throws(BusFailure) {
            try body(call, BusMessage(handle: reply))
            return sd_bus_send(nil, reply, nil) >= 0 ? 1 : -EIO
        } catch {
            var busError = sd_bus_error(name: nil, message: nil, _need_free: 0)
            _ = sd_bus_error_set(&busError, error.name, error.message)
            let status = sd_bus_reply_method_error(call.handle, &busError)
            sd_bus_error_free(&busError)
            return status >= 0 ? 1 : status
        }
    }
}

/// The text of a negative errno status.
func errnoText(_ status: Int32) -> String {
    String(cString: strerror(-status))
}
