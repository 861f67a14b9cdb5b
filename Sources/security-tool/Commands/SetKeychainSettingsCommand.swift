import KeychainCore

extension Command {
    /// `set-keychain-settings [--device-key tpm|file] [keychain]`: macOS's verb for a keychain's settings. Ours has one
    /// setting: where the device key is kept. `--device-key tpm` seals an embedded keychain's device key by the TPM
    /// (`KEYCHAIN_TPM`, or `/dev/tpmrm0`), `--device-key file` moves it back to the plain file; each in one step, all
    /// or nothing, every item kept (``DeviceKeyStorage/move(keychainAt:to:)``). macOS's lock timer options (`-l`, `-u`,
    /// `-t`) do not apply: the embedded keychain has no auto-lock timer.
    static let setKeychainSettings = Command(
        name: "set-keychain-settings",
        usage: """
            [--device-key tpm|file] [keychain]
                --device-key tpm   Seal the keychain's device key by the TPM (KEYCHAIN_TPM, or /dev/tpmrm0)
                --device-key file  Keep the device key in the plain file device.key
            """,
        help: "Set settings for a keychain.",
        options: OptionSpecification("", long: [OptionSpecification.LongOption(name: "device-key", takesValue: true)])
    ) { arguments, session throws(ToolFailure) in
        let location = try KeychainLocation.single(arguments.positionals)
        let context = "SecKeychainSetSettings \(location.name(or: "<NULL>"))"
        guard let value = arguments.value(long: "device-key") else {
            throw .usage("name a setting: --device-key tpm or --device-key file")
        }
        let target: DeviceKeyStorage
        switch value {
        case "tpm": target = .tpm
        case "file": target = .file
        default: throw .usage("--device-key takes tpm or file, not \"\(value)\"")
        }
        if location.daemon != nil {
            throw .failed(
                status: EngineError.Code.unimplemented.rawValue,
                message: "\(context): moving the device key of keychaind's keychain is not supported yet; "
                    + "name an embedded keychain by its directory")
        }
        do throws(EngineError) {
            try DeviceKeyStorage.move(keychainAt: location.directory, to: target)
        } catch {
            throw .failed(status: error.status, message: "\(context): \(error.message)")
        }
        return 0
    }
}
