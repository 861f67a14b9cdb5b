extension Command {
    /// Every verb, in the order of macOS's command table: a prefix of a name runs the first verb that begins with
    /// it (`security find-g` is `find-generic-password`), as on macOS.
    ///
    /// A new verb is one file in `Commands/` defining `static let someVerb = Command(…)`, and one line here.
    static let all: [Command] = [
        .help,
        .createKeychain,
        .deleteKeychain,
        .lockKeychain,
        .unlockKeychain,
        .setKeychainPassword,
        .showKeychainInfo,
        .dumpKeychain,
        .addGenericPassword,
        .addInternetPassword,
        .findGenericPassword,
        .findInternetPassword,
        .deleteGenericPassword,
        .deleteInternetPassword,
        .createKeypair,
        .findCertificate,
        .findIdentity,
        .deleteCertificate,
        .deleteIdentity,
        .importItems,
        .protectFile,
        .unprotectFile,
        .fileProtection,
        .verifyKeychain,
        .registerApp,
        .unregisterApp,
        .listApps,
        .sync,
        .syncInit,
        .syncJoin,
        .syncCode,
        .syncApprove,
        .syncStatus,
        .syncDevices,
        .syncRemove,
        .syncHistory,
        .error,
        // After `error`, so that a prefix keeps naming the verb it named before these came (`security e`, `re`).
        .exportItems,
        .backupKeychain,
        .restoreKeychain,
        .verifyBackup,
        // Last, so that a prefix keeps naming the verb it named before it came (`security set-keychain` is
        // set-keychain-password).
        .setKeychainSettings,
    ]

    /// The verb `word` names: the first whose name begins with it.
    static func named(_ word: String) -> Command? {
        guard !word.isEmpty else { return nil }
        return all.first { $0.name.hasPrefix(word) }
    }
}
