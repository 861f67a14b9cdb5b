import Foundation
import KeychainSync

// One verb on a sync store from a process of its own, for the stores' cross-process tests:
//   sync-store-probe put URL NAME TEXT         prints true or false
//   sync-store-probe put-pattern URL NAME MiB  stores MiB mebibytes of 0xA5 (a writer for a test to kill midway)
//   sync-store-probe get URL NAME              prints the record's text, or exits 1 when there is none
//   sync-store-probe list URL PREFIX           prints the names, one a line
//   sync-store-probe delete URL NAME
// Errors go to standard error with exit status 2.

func run(_ arguments: [String]) throws(SyncStoreError) -> Int32 {
    guard arguments.count >= 3 else {
        FileHandle.standardError.write(Data("usage: sync-store-probe put|put-pattern|get|list|delete URL …\n".utf8))
        return 2
    }
    let store = try SyncStores.open(url: arguments[2])
    switch (arguments[1], arguments.count) {
    case ("put", 5):
        print(try store.putIfAbsent(arguments[3], Array(arguments[4].utf8)))
    case ("put-pattern", 5):
        let count = (Int(arguments[4]) ?? 1) << 20
        print(try store.putIfAbsent(arguments[3], [UInt8](repeating: 0xA5, count: count)))
    case ("get", 4):
        guard let bytes = try store.get(arguments[3]) else { return 1 }
        print(String(decoding: bytes, as: UTF8.self))
    case ("list", 4):
        for name in try store.list(prefix: arguments[3]) { print(name) }
    case ("delete", 4):
        try store.delete(arguments[3])
    default:
        FileHandle.standardError.write(Data("sync-store-probe: unknown verb or wrong arguments\n".utf8))
        return 2
    }
    return 0
}

do {
    exit(try run(CommandLine.arguments))
} catch {
    FileHandle.standardError.write(Data("sync-store-probe: \(error)\n".utf8))
    exit(2)
}
