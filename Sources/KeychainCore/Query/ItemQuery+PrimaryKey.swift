extension ItemQuery {
    /// The query for exactly the item a new item's primary key names (the item an add of it would collide with):
    /// its access group and synchronizable flag after their defaults for `caller`, and each primary-key attribute
    /// it lacks as the empty value it counts as.
    public init(primaryKeyOf item: NewItem, for caller: Caller) {
        var attributes: ItemAttributes = [
            .accessGroup: .string(item.attributes.string(.accessGroup) ?? caller.defaultGroup)
        ]
        for key in item.itemClass.primaryKey {
            attributes[key] = item.attributes[key] ?? BlindIndex.emptyValue(of: key)
        }
        let synchronizable = item.attributes.bool(.synchronizable) ?? false
        self.init(
            itemClass: item.itemClass, attributes: attributes,
            synchronizable: synchronizable ? .synchronizableOnly : .localOnly)
    }
}
