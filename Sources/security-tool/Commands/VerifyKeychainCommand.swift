import Keychain
import Security

extension Command {
    /// `verify-keychain [--json] [keychain]` (ours): reads every item and the keychain's own records, prints each
    /// damaged, stale or missing item by persistent reference and each keychain-wide problem, and exits with
    /// `errSecDecode`'s status when anything is wrong. A locked keychain is unlocked first (asking on the terminal),
    /// since a locked item's contents cannot be checked.
    static let verifyKeychain = Command(
        name: "verify-keychain",
        usage: """
            [--json] [keychain]
                --json  Print the findings as JSON
            """,
        help: "Check every item of a keychain for damage, rollback and missing items.",
        options: OptionSpecification("", long: [.json])
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "verify-keychain \(location.name(or: "<NULL>"))"
        let keychain = try session.keychains.keychain(at: location, context: context)
        let verification: KeychainVerification
        do throws(KeychainError) {
            verification = try session.keychains.unlocking(keychain, at: location) { () throws(KeychainError) in
                let verification = try keychain.verify()
                guard verification.lockedItemCount == 0 else {
                    throw KeychainError(
                        status: errSecInteractionNotAllowed,
                        message: "\(verification.lockedItemCount) items cannot be checked while the keychain is locked")
                }
                return verification
            }
        } catch {
            throw .keychain(error, context)
        }
        if arguments.has(long: "json") {
            let damaged = verification.damagedItems.map { item in
                JSONValue.object(["item": .string(item.name), "problem": .string(item.problem)])
            }
            session.console.print(
                JSONValue.object([
                    "keychain": .string(location.path), "items": .number(Int64(verification.itemCount)),
                    "sound": .bool(verification.isSound), "damaged": .array(damaged),
                    "problems": .array(verification.problems.map(JSONValue.string)),
                ]).text)
        } else {
            for problem in verification.problems { session.console.print("problem: \(problem)") }
            for item in verification.damagedItems { session.console.print("damaged: \(item.name): \(item.problem)") }
            session.console.print(
                "\(counted(verification.itemCount, "item")) checked, \(verification.damagedItems.count) damaged, "
                    + "\(counted(verification.problems.count, "keychain problem"))")
        }
        guard verification.isSound else {
            throw .failed(
                status: errSecDecode, message: "\(context): the keychain \(location.path) is damaged (see above)")
        }
        return 0
    }
}

/// `1 item`, `2 items`.
private func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
