import Foundation
import KeychainCore

/// The keychain's items as a backup lists them: class by class, in pages (``ItemQuery/startingAfter``), so that
/// memory stays flat in the item count whether the keychain is this process's engine or keychaind's (whose replies
/// carry at most a few megabytes).
struct BackupListing {
    /// Where an item goes in a backup.
    enum Placement: Equatable {
        /// Into the archive.
        case migratable
        /// Nowhere: its accessibility keeps it on this device.
        case thisDeviceOnly
        /// Nowhere: its data opens only here (access control), or it is a key that never leaves the keychain.
        case boundToThisKeychain

        /// Decided by the attributes alone, so that a count of attributes and the listing of data agree.
        init(_ attributes: ItemAttributes) {
            let protection = ProtectionClass(rawValue: attributes.string(.accessible) ?? "") ?? .default
            if protection.isThisDeviceOnly {
                self = .thisDeviceOnly
            } else if attributes[.accessControl] != nil || !ItemValidator.isExtractable(attributes) {
                self = .boundToThisKeychain
            } else {
                self = .migratable
            }
        }
    }

    /// Items per page: a few hundred keep the calls few and the pages small.
    static let pageSize = 256

    let backend: any KeychainBackend
    let caller: Caller

    /// The backend when it counts and hands over items from their rows itself (the embedded engine).
    var engineSource: (any KeychainBackupCensus)? { backend as? any KeychainBackupCensus }

    /// Hands every item the caller may read to `body`, page by page, with `returning` (attributes always). Items
    /// with access control that would need the user are left out, as a backup must not prompt.
    func forEach(
        returning: ReturnOptions, _ body: (Item) throws(EngineError) -> Void
    ) throws(EngineError) {
        for itemClass in ItemClass.allCases {
            var cursor: PersistentReference?
            var pageSize = Self.pageSize
            while true {
                let query = ItemQuery(
                    itemClass: itemClass, synchronizable: .any, limit: .upTo(pageSize),
                    returning: returning.union(.attributes),
                    authentication: ItemAuthentication(interaction: .skipItems), startingAfter: cursor)
                let page: [Item]
                do throws(EngineError) {
                    page = try backend.copyMatching(query, for: caller)
                } catch  where error.code == .itemNotFound {
                    break
                } catch  where error.code == .dataTooLarge && pageSize > 1 {
                    // Large secrets: a page past what one reply carries is asked for again, smaller.
                    pageSize = max(1, pageSize / 4)
                    continue
                } catch {
                    throw error
                }
                for item in page { try body(item) }
                guard page.count == pageSize, let last = page.last else { break }
                cursor = last.persistentReference
            }
        }
    }

    /// How many items go where: from the rows' clear columns when the backend can tell (the engine, which then
    /// opens no item twice), else by listing every item's attributes.
    func census() throws(EngineError) -> BackupSummary {
        if let summary = try engineCensus() { return summary }
        var summary = BackupSummary(itemCount: 0, thisDeviceOnly: 0, boundToThisKeychain: 0)
        try forEach(returning: .attributes) { (item) throws(EngineError) in
            switch Placement(item.attributes) {
            case .migratable: summary.itemCount += 1
            case .thisDeviceOnly: summary.thisDeviceOnly += 1
            case .boundToThisKeychain: summary.boundToThisKeychain += 1
            }
        }
        return summary
    }

    /// The census the engine tells from its rows' clear columns, or `nil` when the backend is not the engine or the
    /// caller's groups are wildcards (then only a listing counts, and only a listing hands the items over).
    func engineCensus() throws(EngineError) -> BackupSummary? {
        guard let counting = engineSource, let census = try counting.backupCensus(for: caller) else { return nil }
        return BackupSummary(
            itemCount: census.migratable, thisDeviceOnly: census.thisDeviceOnly,
            boundToThisKeychain: census.boundToThisKeychain)
    }
}
