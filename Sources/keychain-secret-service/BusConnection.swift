import CSDBus
import Foundation

/// The session bus connection (sd-bus), the Secret Service's objects on it and the loop that serves them.
final class BusConnection {
    private let bus: OpaquePointer
    private var slots: [OpaquePointer?] = [nil, nil]
    private var handler: Unmanaged<SecretService>?

    private init(bus: OpaquePointer) { self.bus = bus }

    /// The bus DBUS_SESSION_BUS_ADDRESS names.
    static func sessionBus() throws(BusFailure) -> BusConnection {
        var bus: OpaquePointer?
        let status = sd_bus_open_user(&bus)
        guard status >= 0, let bus else {
            throw BusFailure(
                name: "", message: "cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS): \(errnoText(status))")
        }
        return BusConnection(bus: bus)
    }

    /// Serves `service`'s objects under `/org/freedesktop/secrets`.
    func serve(_ service: SecretService) throws(BusFailure) {
        let bus = self.bus
        service.emit = { member, item in
            // The collection's signal, as the write happens: its path, interface and member, the item's path.
            var signal: OpaquePointer?
            guard
                sd_bus_message_new_signal(
                    bus, &signal, SecretService.collection, SecretService.collectionInterface, member) >= 0,
                let signal
            else { return }
            defer { sd_bus_message_unref(signal) }
            guard (try? BusMessage(handle: signal).append(item, as: "o")) != nil else { return }
            _ = sd_bus_send(bus, signal, nil)
        }
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
    }

    /// Owns `name`, taking it from its owner when `replacing`; a name another provider holds is an error saying so.
    func requestName(_ name: String, replacing: Bool) throws(BusFailure) {
        var flags = UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT)
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

    /// Serves calls until `stop` answers true (checked at least every quarter second).
    func run(until stop: () -> Bool) {
        while !stop() {
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
        sd_bus_flush_close_unref(bus)
    }

    /// Answers one call: the method's return, or the error it raised.
    private static func dispatch(_ call: BusMessage, to service: SecretService) -> Int32 {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(call.handle, &reply) >= 0, let reply else { return -ENOMEM }
        defer { sd_bus_message_unref(reply) }
        do throws(BusFailure) {
            try service.handle(call, reply: BusMessage(handle: reply))
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
