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
    /// `--wait SECONDS`: how long `sync-join` waits for a trusted device's answer.
    static let wait = OptionSpecification.LongOption(name: "wait", takesValue: true)
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

    /// `sync-join --store URL [--device NAME] [--circle CODE] [--wait SECONDS]` (ours): asks to join the circle in
    /// the store, waits for a trusted device to answer (`sync-approve` there), and prints the code to type there.
    static let syncJoin = Command(
        name: "sync-join",
        usage: """
            --store URL [--device NAME] [--circle CODE] [--wait SECONDS]
                --store URL     The store the circle is in
                --device NAME   This device's name (default: the host name)
                --circle CODE   Join only the circle with this code (sync-status on a member shows it)
                --wait SECONDS  How long to wait for a trusted device's answer (default 600; 0: do not wait)
            """,
        help: "Ask to join the sync circle in a store; prints the code to type on a trusted device once it answers.",
        options: OptionSpecification("", long: [.store, .device, .circle, .wait])
    ) { arguments, session throws(ToolFailure) in
        let waitText = arguments.value(long: "wait") ?? "600"
        guard let wait = Int(waitText), wait >= 0, wait <= 86_400 else {
            throw .usage("--wait \(waitText): give a number of seconds from 0 to 86400")
        }
        let device = try setUpDevice(arguments, session, context: "sync-join", create: false)
        session.console.printError(
            "asked to join as \(device.name); on a trusted device run: security sync-approve (it answers this request)")
        let deadline = Date().addingTimeInterval(Double(wait))
        var codes: [String: String] = [:]
        while true {
            codes = try Self.joinCodes(session, context: "sync-join")
            if !codes.isEmpty || Date() >= deadline { break }
            Thread.sleep(forTimeInterval: 1)
        }
        try printCodes(codes, session)
        return 0
    }

    /// `sync-code` (ours): on a device that asked to join, the code to type on each trusted device that answered.
    static let syncCode = Command(
        name: "sync-code",
        usage: "",
        help: "Show the code to type on the trusted device that answered this device's join request.",
        options: OptionSpecification("")
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.isEmpty else { throw .usage("sync-code takes no arguments") }
        let codes = try Self.joinCodes(session, context: "sync-code")
        try printCodes(codes, session)
        return codes.isEmpty ? 1 : 0
    }

    /// The codes to type on each trusted device that answered this device's join request.
    private static func joinCodes(_ session: ToolSession, context: String) throws(ToolFailure) -> [String: String] {
        guard case .codes(let codes) = try SyncSession.perform(.joinCodes, session, context: context) else {
            throw SyncSession.unexpectedAnswer(context)
        }
        return codes
    }

    /// Prints each code (standard output) and where to type it (standard error), or that none has come yet.
    private static func printCodes(_ codes: [String: String], _ session: ToolSession) throws(ToolFailure) {
        guard !codes.isEmpty else {
            session.console.printError(
                "no trusted device has answered yet: run security sync-approve on one, then security sync-code here")
            return
        }
        for (member, code) in codes.sorted(by: { $0.key < $1.key }) {
            session.console.print(code)
            session.console.printError("type it on \(member): security sync-approve \(code)")
        }
    }

    /// `sync-approve [CODE]` (ours): without a code, answers the devices that asked to join; with one, admits the
    /// device that shows it.
    static let syncApprove = Command(
        name: "sync-approve",
        usage:
            "[CODE]\n        CODE  The code the new device shows once this one answered (sync-approve alone answers)",
        help: "Answer the devices that asked to join the sync circle, or approve the one that shows CODE.",
        options: OptionSpecification("")
    ) { arguments, session throws(ToolFailure) in
        guard arguments.positionals.count <= 1 else {
            throw .usage("sync-approve takes at most one code, as the new device shows it")
        }
        guard let code = arguments.positionals.first else {
            guard
                case .requests(let requests) = try SyncSession.perform(
                    .answerJoinRequests, session, context: "sync-approve")
            else { throw SyncSession.unexpectedAnswer("sync-approve") }
            guard !requests.isEmpty else {
                session.console.printError("no device has asked to join (security sync-join on the new device)")
                return 1
            }
            for request in requests {
                session.console.print("\(request.name) (\(request.deviceID))")
            }
            session.console.printError(
                "answered; the new device shows a code (sync-join, or sync-code there): type security sync-approve CODE"
            )
            return 0
        }
        _ = try SyncSession.perform(.approve(code: code), session, context: "sync-approve \(code)")
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
        _ = try SyncSession.perform(.remove(device: name), session, context: "sync-remove \(name)")
        session.console.print("removed \(name) from the sync circle; the circle's key was rolled")
        return 0
    }

    /// `sync-init` and `sync-join`'s common work: the store, the device name, the keychain; the device set up.
    private static func setUpDevice(
        _ arguments: ParsedArguments, _ session: ToolSession, context: String, create: Bool
    ) throws(ToolFailure) -> (name: String, deviceID: String, circleCode: String) {
        guard arguments.positionals.isEmpty else {
            throw .usage("unexpected arguments: \(arguments.positionals.joined(separator: " "))")
        }
        guard let url = arguments.value(long: "store"), !url.isEmpty else {
            throw .usage("\(context) needs --store URL (file:///path or postgresql://…)")
        }
        let name = arguments.value(long: "device") ?? ProcessInfo.processInfo.hostName
        let operation: SyncOperation =
            create
            ? .createCircle(storeURL: url, name: name)
            : .join(storeURL: url, name: name, circleCode: arguments.value(long: "circle"))
        guard
            case .device(let name, let deviceID, let circleCode) = try SyncSession.perform(
                operation, session, context: context)
        else { throw SyncSession.unexpectedAnswer(context) }
        return (name, deviceID, circleCode)
    }
}
