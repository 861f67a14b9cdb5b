import Foundation
import Keychain
import KeychainSync

extension OptionSpecification.LongOption {
    /// `--store URL`: the sync store (`file:///path`, `postgresql://…`).
    static let store = OptionSpecification.LongOption(name: "store", takesValue: true)
    /// `--device NAME`: this device's name in the circle.
    static let device = OptionSpecification.LongOption(name: "device", takesValue: true)
    /// `--circle CODE`: the circle a joining device accepts (its code, as `sync-status` shows it on a member).
    static let circle = OptionSpecification.LongOption(name: "circle", takesValue: true)
}

extension Command {
    /// `sync-init --store URL [--device NAME]` (ours): makes the default keychain the first device of a new sync
    /// circle in the store.
    static let syncInit = Command(
        name: "sync-init",
        usage: """
            --store URL [--device NAME]
                --store URL    The store the devices share: file:///path (a folder another tool keeps in step) or postgresql://…
                --device NAME  This device's name (default: the host name)
            """,
        help: "Create a sync circle in a store, with this keychain as its first device.",
        options: OptionSpecification("", long: [.store, .device])
    ) { arguments, session throws(ToolFailure) in
        let device = try setUpDevice(arguments, session, context: "sync-init", create: true)
        session.console.print(
            "device \(device.name) (\(device.deviceID)) created the sync circle; its code is \(device.circleCode) "
                + "(sync-join --circle \(device.circleCode) on a new device accepts only this circle)")
        return 0
    }

    /// `sync-join --store URL [--device NAME]` (ours): asks to join the circle in the store and prints the code a
    /// trusted device approves.
    static let syncJoin = Command(
        name: "sync-join",
        usage: """
            --store URL [--device NAME] [--circle CODE]
                --store URL    The store the circle is in
                --device NAME  This device's name (default: the host name)
                --circle CODE  Join only the circle with this code (sync-status on a member shows it)
            """,
        help: "Ask to join the sync circle in a store; prints the code to approve on a trusted device.",
        options: OptionSpecification("", long: [.store, .device, .circle])
    ) { arguments, session throws(ToolFailure) in
        let device = try setUpDevice(arguments, session, context: "sync-join", create: false)
        session.console.print(device.joinCode)
        session.console.printError(
            "approve this device on a trusted one with: security sync-approve \(device.joinCode); then run security sync"
        )
        return 0
    }

    /// `sync-approve CODE` (ours): admits the device whose join request has that code.
    static let syncApprove = Command(
        name: "sync-approve",
        usage: "CODE\n        CODE  The code sync-join printed on the new device",
        help: "Approve a device that asked to join the sync circle, by its code.",
        options: OptionSpecification("")
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let code = arguments.positionals.first else {
            throw .usage("sync-approve takes one code, as sync-join printed it")
        }
        let device = try SyncSession.device(session, context: "sync-approve")
        try SyncSession.run("sync-approve \(code)") { () throws(SyncError) in
            try device.approve(code: code)
            try device.syncOnce()
        }
        session.console.print("approved the device with code \(code)")
        return 0
    }

    /// `sync-remove DEVICE` (ours): removes a device from the circle, by name or id, and rolls the circle's key.
    static let syncRemove = Command(
        name: "sync-remove",
        usage: "DEVICE\n        DEVICE  The device's name or id (see sync-devices)",
        help: "Remove a device from the sync circle; it cannot read anything written afterwards.",
        options: OptionSpecification("")
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
            throw .usage("sync-remove takes one device name or id")
        }
        let device = try SyncSession.device(session, context: "sync-remove")
        try SyncSession.run("sync-remove \(name)") { () throws(SyncError) in
            try device.removeDevice(name)
        }
        session.console.print("removed \(name) from the sync circle; the circle's key was rolled")
        return 0
    }

    /// `sync-init` and `sync-join`'s common work: the store, the device name, the keychain.
    private static func setUpDevice(
        _ arguments: ParsedArguments, _ session: ToolSession, context: String, create: Bool
    ) throws(ToolFailure) -> SyncDevice {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected arguments: \(arguments.positionals.joined(separator: " "))")
        }
        guard let url = arguments.value(long: "store"), !url.isEmpty else {
            throw .usage("\(context) needs --store URL (file:///path or postgresql://…)")
        }
        let name = arguments.value(long: "device") ?? ProcessInfo.processInfo.hostName
        let location = try SyncSession.location()
        let backend = try SyncSession.backend(at: location, session, context: context)
        return try SyncSession.run(context) { () throws(SyncError) -> SyncDevice in
            let store = try SyncSession.openStore(url)
            return create
                ? try SyncDevice.createCircle(
                    directory: location.directory, backend: backend, store: store, storeURL: url, name: name)
                : try SyncDevice.join(
                    directory: location.directory, backend: backend, store: store, storeURL: url, name: name,
                    circleCode: arguments.value(long: "circle"))
        }
    }
}
