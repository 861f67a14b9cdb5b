import KeychainCore

/// Accessibility migration: moving items to another protection class, atomically.
///
/// Each item's key is rewrapped under the new class's key, and every item moves in one transaction: if one cannot
/// move (its class or the new one is locked, or a synchronizable item would get a this-device-only class), the
/// error is thrown and no item has moved. Items are never deleted and added again.
extension Keychain {
    /// Moves every item of the key-value API (this keychain's service, access group and synchronizable flag) to
    /// `accessibility`; returns how many moved. Configure later writes to match with
    /// ``accessibility(_:)``, since `set(_:for:)` writes with the keychain's accessibility.
    @discardableResult
    public func migrateAccessibility(to accessibility: Accessibility) throws(KeychainError) -> Int {
        try migrate(valueQuery(nil), to: accessibility, "the keys of service \"\(service)\"")
    }

    /// Moves every generic password a query matches to `accessibility`; returns how many moved.
    @discardableResult
    public func migrateAccessibility(
        of query: GenericPassword.Query, to accessibility: Accessibility
    ) throws(KeychainError) -> Int {
        try migrate(query.itemQuery, to: accessibility, "generic passwords")
    }

    /// Moves every internet password a query matches to `accessibility`; returns how many moved.
    @discardableResult
    public func migrateAccessibility(
        of query: InternetPassword.Query, to accessibility: Accessibility
    ) throws(KeychainError) -> Int {
        try migrate(query.itemQuery, to: accessibility, "internet passwords")
    }

    private func migrate(
        _ query: ItemQuery, to accessibility: Accessibility, _ what: String
    ) throws(KeychainError) -> Int {
        try perform("cannot move \(what) to accessibility \(accessibility)") {
            (connection, caller) throws(EngineError) -> Int in
            do throws(EngineError) {
                return try connection.update(
                    query, with: ItemChanges(attributes: [.accessible: .string(accessibility.rawValue)]), for: caller
                ).count
            } catch  where KeychainError.isNotFound(error) {
                return 0
            }
        }
    }
}
