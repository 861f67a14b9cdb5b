extension ItemQuery {
    /// Whether the engine would return `item` to `caller` for this query, decided on the item's attributes alone
    /// (no search, no decryption): the class or persistent reference, the synchronizable filter, an access group
    /// the caller is entitled to, and every attribute of the query by the engine's own rule (a missing
    /// primary-key attribute counts as empty; text ignores case when the query says so).
    ///
    /// For routing notifications about items already in hand, such as the `Keychain` module's change stream. A
    /// query that names neither a class nor a persistent reference matches nothing (the engine refuses it).
    public func matches(_ item: Item, for caller: Caller) -> Bool {
        guard itemClass != nil || persistentReference != nil else { return false }
        if let itemClass, itemClass != item.itemClass { return false }
        if let persistentReference, persistentReference != item.persistentReference { return false }
        guard synchronizable.matches(item.attributes.bool(.synchronizable) ?? false),
            let group = item.attributes.string(.accessGroup), caller.canAccess(group)
        else { return false }
        return matches(item.attributes, of: item.itemClass)
    }
}
