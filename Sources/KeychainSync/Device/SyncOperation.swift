import Foundation
import KeychainCore

/// One thing a sync verb asks of a keychain's sync device, whoever holds the keychain: the `security` tool for an
/// embedded keychain, keychaind for the keychain it serves (the tool sends the operation, the daemon carries it out
/// on its own engine and directory, and its background sync follows the keychain from then on). One description,
/// carried out in one place (``SyncDevice/perform(_:directory:backend:progress:)``).
public enum SyncOperation: Sendable, Equatable, Codable {
    /// `sync-init`: a new circle in the store, this keychain its first device.
    case createCircle(storeURL: String, name: String)
    /// `sync-join`: asks to join the circle in the store.
    case join(storeURL: String, name: String, circleCode: String?)
    /// The codes to type on each trusted device that answered this device's join request.
    case joinCodes
    /// `sync-approve` alone: answers the devices that asked to join.
    case answerJoinRequests
    /// `sync-approve CODE`: admits the device that shows the code, then syncs once.
    case approve(code: String)
    /// `sync-remove DEVICE`.
    case remove(device: String)
    /// `sync-status`.
    case status
    /// `sync-devices` (after one pass, so the list is current).
    case devices
    /// `sync-history`: the kept losing versions of an item.
    case history(PersistentReference)
    /// `sync`: one pass.
    case syncOnce

    /// The verb's name, for errors and logs (no value: a store URL may hold a password).
    public var name: String {
        switch self {
        case .createCircle: "sync-init"
        case .join: "sync-join"
        case .joinCodes: "sync-code"
        case .answerJoinRequests, .approve: "sync-approve"
        case .remove: "sync-remove"
        case .status: "sync-status"
        case .devices: "sync-devices"
        case .history: "sync-history"
        case .syncOnce: "sync"
        }
    }
}

/// What a ``SyncOperation`` answered.
public enum SyncOutcome: Sendable, Equatable, Codable {
    /// The device set up (`sync-init`, `sync-join`): its name, id and the circle's code (empty until known).
    case device(name: String, deviceID: String, circleCode: String)
    /// The codes to type on the trusted devices that answered (``SyncOperation/joinCodes``), by device name.
    case codes([String: String])
    /// The join requests this device answered (``SyncOperation/answerJoinRequests``), to show the user.
    case requests([SyncDevice.JoinRequest])
    /// The operation was carried out and has nothing to say (``SyncOperation/approve(code:)``,
    /// ``SyncOperation/remove(device:)``).
    case done
    /// The device's sync state (``SyncOperation/status``).
    case status(SyncStatus)
    /// The circle's devices (``SyncOperation/devices``).
    case devices([SyncDeviceInfo])
    /// The item's kept losing versions, newest first (``SyncOperation/history(_:)``).
    case history([SyncHistoryEntry])
    /// What one pass did (``SyncOperation/syncOnce``).
    case report(SyncReport)
}

/// What keychaind answers a ``SyncOperation`` with, as JSON: the outcome, or the sync error — its keychain status
/// when the keychain refused, so the tool exits as it would on an embedded keychain.
public struct SyncReply: Sendable, Codable {
    /// What the operation answered, when it succeeded.
    public var outcome: SyncOutcome?
    /// The keychain's status, when the keychain refused.
    public var keychainStatus: Int32?
    /// Why it failed, when it did.
    public var message: String?

    /// A reply holding `outcome`.
    public init(_ outcome: SyncOutcome) {
        self.outcome = outcome
    }

    /// A reply holding `error`, with `message` in place of its own.
    public init(_ error: SyncError, message: String) {
        if case .keychain(let code) = error.kind { keychainStatus = code.rawValue }
        self.message = message
    }

    /// The outcome, or the error the reply holds (any other kind than the keychain's is told by its message).
    public func result(of operation: SyncOperation) throws(SyncError) -> SyncOutcome {
        if let outcome { return outcome }
        if let keychainStatus, let code = EngineError.Code(rawValue: keychainStatus) {
            throw SyncError(.keychain(code), message ?? "refused")
        }
        throw SyncError(.notFound, message ?? "keychaind could not carry out \(operation.name)")
    }
}

extension SyncDevice {
    /// Carries out `operation` on the keychain in `directory` through `backend`: the one place every sync verb's work
    /// is done, in the tool or in keychaind.
    /// `progress` hears how far a ``SyncOperation/syncOnce`` pass is (``syncOnce(progress:)``).
    public static func perform(
        _ operation: SyncOperation, directory: URL, backend: any KeychainBackend,
        progress: ((SyncProgress) -> Void)? = nil
    ) throws(SyncError) -> SyncOutcome {
        switch operation {
        case .createCircle(let url, let name):
            let device = try createCircle(
                directory: directory, backend: backend, store: try openStore(url), storeURL: url, name: name)
            return .device(name: device.name, deviceID: device.deviceID, circleCode: device.circleCode)
        case .join(let url, let name, let circleCode):
            let device = try join(
                directory: directory, backend: backend, store: try openStore(url), storeURL: url, name: name,
                circleCode: circleCode)
            return .device(name: device.name, deviceID: device.deviceID, circleCode: "")
        default:
            guard isConfigured(in: directory) else {
                throw SyncError(
                    .notConfigured,
                    "the keychain is not set up for sync: run sync-init --store URL on the first device, "
                        + "sync-join --store URL on the others")
            }
            let device = try open(
                directory: directory, backend: backend,
                store: try openStore(try storeURL(in: directory, backend: backend)))
            return try device.perform(operation, progress: progress)
        }
    }

    /// Carries out an operation on this (set-up) device.
    private func perform(
        _ operation: SyncOperation, progress: ((SyncProgress) -> Void)?
    ) throws(SyncError) -> SyncOutcome {
        switch operation {
        case .createCircle, .join:
            throw SyncError(.alreadyConfigured, "the keychain is set up for sync already")
        case .joinCodes: return .codes(try revealJoinCodes())
        case .answerJoinRequests: return .requests(try answerJoinRequests())
        case .approve(let code):
            try approve(code: code)
            _ = try syncOnce()
            return .done
        case .remove(let device):
            try removeDevice(device)
            return .done
        case .status: return .status(try status())
        case .devices:
            _ = try syncOnce()
            return .devices(try devices())
        case .history(let reference): return .history(try history(for: reference))
        case .syncOnce: return .report(try syncOnce(progress: progress))
        }
    }

    /// The store `url` names, its failure as a sync error.
    private static func openStore(_ url: String) throws(SyncError) -> any SyncStore {
        do throws(SyncStoreError) {
            return try SyncStores.open(url: url)
        } catch {
            throw SyncError(.store(error.kind), error.message)
        }
    }
}
