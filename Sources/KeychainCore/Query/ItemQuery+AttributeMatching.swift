import Foundation

extension ItemQuery {
    /// Whether decrypted attributes satisfy every attribute of the query. A missing primary-key attribute counts as
    /// empty (Apple's rule), so `acct = ""` matches an item added without an account; blob attributes compare as
    /// bytes, so text matches its UTF-8 bytes.
    func matches(_ attributes: ItemAttributes, of itemClass: ItemClass) -> Bool {
        for (key, wanted) in self.attributes {
            let actual = attributes[key] ?? (itemClass.primaryKey.contains(key) ? BlindIndex.emptyValue(of: key) : nil)
            guard let actual else { return false }
            if key == .searchTerms {
                // The item holds every term the query names (and maybe more).
                guard let held = try? SearchTerms.terms(in: actual), let named = try? SearchTerms.terms(in: wanted),
                    Set(named).isSubset(of: held)
                else { return false }
                continue
            }
            if caseInsensitive, let left = wanted.textValue, let right = actual.textValue {
                guard left.compare(right, options: .caseInsensitive) == .orderedSame else { return false }
            } else if !actual.isSame(as: wanted, for: key) {
                return false
            }
        }
        return true
    }

    /// A short rendering of what the query looks for, without secrets: `genp account "alice", service "mail"`.
    var summary: String {
        let shown = attributes.filter { $0.key.valueType != .data }
        let parts = shown.map { "\($0.key.rawValue) \($0.value)" }
        let name = (itemClass ?? persistentReference?.itemClass)?.rawValue ?? "item"
        let reference = persistentReference.map { " with persistent reference \($0)" } ?? ""
        return parts.isEmpty ? "\(name)\(reference)" : "\(name)\(reference) with \(parts.joined(separator: ", "))"
    }
}
