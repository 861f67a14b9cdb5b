import Foundation
import TestSupport
import Testing

/// The `secitem-probe` executable: one SecItem call in a process of its own, on the keychain and as the caller its
/// environment names — the way an app reaches the process's default keychain.
struct Probe {
    /// The probe built beside the test bundle.
    static let builtExecutable = BuiltExecutable.named("secitem-probe")

    var executable = Probe.builtExecutable
    var keychainHome: URL
    var entitlements: URL?
    var extraEnvironment: [String: String] = [:]

    /// What one call returned.
    struct Outcome {
        var status: Int32
        var message: String
        var result: Any?
        var standardError: String
    }

    /// Runs `operation` (`add`, `copy`, `update`, `delete`) with `dictionary` (and `changes` for an update).
    func call(_ operation: String, _ dictionary: [String: Any], _ changes: [String: Any]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = [operation, try Self.json(dictionary)] + (try changes.map { [try Self.json($0)] } ?? [])
        var environment = ["KEYCHAIN_HOME": keychainHome.path, "SWIFT_BACKTRACE": "enable=no"]
        environment["KEYCHAIN_ENTITLEMENTS"] = entitlements?.path
        process.environment = environment.merging(extraEnvironment) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try Self.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let result = object["result"].flatMap { $0 is NSNull ? nil : $0 }
        return Outcome(
            status: Int32(try #require(object["status"] as? Int)), message: object["message"] as? String ?? "",
            result: result, standardError: errorText)
    }

    /// Starts `process`, again while its executable is busy (ETXTBSY): a copy of the probe just written by this test
    /// is open for writing, for an instant, in any child another test forks before that child's exec closes it.
    private static func run(_ process: Process) throws {
        for attempt in 1... {
            do {
                return try process.run()
            } catch let error as NSError where attempt < 50 && isBusyText(error) {
                usleep(10_000)
            }
        }
    }

    /// Whether `error` is ETXTBSY: Foundation reports it as a Cocoa error with the POSIX one underneath.
    private static func isBusyText(_ error: NSError) -> Bool {
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError ?? error
        return underlying.domain == NSPOSIXErrorDomain && underlying.code == Int(ETXTBSY)
    }

    /// The secret a copy returned (`{"$data": base64}`), as text.
    static func secret(_ outcome: Outcome) -> String? {
        guard let encoded = (outcome.result as? [String: Any])?["$data"] as? String,
            let data = Data(base64Encoded: encoded)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func json(_ dictionary: [String: Any]) throws -> String {
        let encoded = dictionary.mapValues { value -> Any in
            if let data = value as? Data { return ["$data": data.base64EncodedString()] }
            return value
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: encoded), as: UTF8.self)
    }
}

/// Writes an Xcode-style `.entitlements` property list.
func writeEntitlements(_ entitlements: [String: Any], to url: URL) throws {
    let data = try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0)
    try data.write(to: url)
}
