import Foundation

/// Foundation's spellings, for code written against `FileManager` and `Data` on Apple platforms, where the same
/// calls pick a file's protection class.
extension ProtectedFiles {
    /// Creates a protected file at `path` with `data` (empty when `nil`), replacing any file there, like
    /// `FileManager.createFile(atPath:contents:attributes:)`. The class is `attributes[.protectionKey]` (a
    /// `FileProtectionType`, or its raw value such as `"NSFileProtectionComplete"`), else
    /// ``FileProtectionClass/default``.
    ///
    /// Like Foundation it returns `false` on any failure, including a class unavailable in the current lock state
    /// and an attribute other than `.protectionKey` (the file is always mode 0600). Call
    /// ``write(_:to:protection:)`` to learn why a write fails.
    @discardableResult
    public func createFile(atPath path: String, contents data: Data?, attributes: [FileAttributeKey: Any]? = nil)
        -> Bool
    {
        var protection = FileProtectionClass.default
        for (key, value) in attributes ?? [:] {
            guard key == .protectionKey else { return false }
            let type = (value as? FileProtectionType) ?? (value as? String).map { FileProtectionType(rawValue: $0) }
            guard let type, let named = FileProtectionClass(type) else { return false }
            protection = named
        }
        do {
            try write(data ?? Data(), to: URL(fileURLWithPath: path), protection: protection)
            return true
        } catch {
            return false
        }
    }
}

/// Foundation's `Data.write(to:options:)` with a protection class, as Apple's platforms spell it, writing a protected
/// file here.
extension Data {
    /// Writes the data to `url` as a protected file on `files`, like `write(to:options:)` on Apple platforms: the
    /// class comes from the options' protection bits (`.completeFileProtection`, `.noFileProtection`, …; none
    /// means ``FileProtectionClass/default``). The write is always atomic; `.withoutOverwriting` fails with
    /// ``FileProtectionError/duplicateItem`` when a file exists at `url`.
    public func write(
        to url: URL, options: Data.WritingOptions = [], protectedBy files: ProtectedFiles
    ) throws(FileProtectionError) {
        guard let protection = FileProtectionClass(options) else {
            throw FileProtectionError(
                .param, "\(url.path): writing options \(options.rawValue) name no single file protection class")
        }
        try files.write(self, to: url, protection: protection, overwriting: !options.contains(.withoutOverwriting))
    }
}
