import Foundation

/// Writes a line to standard error (the journal, under systemd).
package func log(_ line: String) {
    FileHandle.standardError.write(Data("keychaind: \(line)\n".utf8))
}
