// Walks the engine through a real session on an embedded keychain in a temporary directory: create with a
// passcode, add, find, update, lock, the locked error, unlock, delete, and the not-found error.
import Foundation
import KeychainCore

func step(_ title: String, _ body: () throws -> String) {
    do {
        print("• \(title): \(try body())")
    } catch let error as EngineError {
        print("• \(title): error \(error.status) — \(error.message)")
    } catch {
        print("• \(title): \(error)")
    }
}

let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("swift-keychain-demo-\(ProcessInfo.processInfo.processIdentifier)")
defer { try? FileManager.default.removeItem(at: directory) }
let caller = Caller(applicationIdentifier: "com.example.demo")
let account: ItemAttributes = [.service: .string("api.example.com"), .account: .string("alice")]

do {
    print("keychain: \(directory.path)")
    let engine = try Engine(storage: .directory(directory))
    step("set passcode") {
        try engine.setPasscode("correct horse", current: nil)
        return "set (Argon2id \(PasscodeCost.standard))"
    }
    step("add genp") {
        let item = try engine.add(
            NewItem(itemClass: .genericPassword, attributes: account, data: Data("s3cret-token".utf8)), for: caller)
        return "persistent reference \(item.persistentReference)"
    }
    step("add the same again") {
        _ = try engine.add(NewItem(itemClass: .genericPassword, attributes: account, data: Data()), for: caller)
        return "added (unexpected)"
    }
    let find = ItemQuery(itemClass: .genericPassword, attributes: account, returning: [.data, .attributes])
    step("find") {
        let item = try engine.copyMatching(find, for: caller)[0]
        return
            "\(String(decoding: item.data ?? Data(), as: UTF8.self)) in group \(item.attributes.string(.accessGroup) ?? "?")"
    }
    step("update") {
        let count = try engine.update(
            ItemQuery(itemClass: .genericPassword, attributes: account),
            with: ItemChanges(data: Data("rotated-token".utf8)), for: caller)
        return "\(count) item changed"
    }
    step("find again") {
        String(decoding: try engine.copyMatching(find, for: caller)[0].data ?? Data(), as: UTF8.self)
    }
    engine.lock()
    step("find while locked") { "\(try engine.copyMatching(find, for: caller).count) item" }
    step("unlock with a wrong passcode") {
        try engine.unlock(passcode: "wrong")
        return "unlocked (unexpected)"
    }
    step("unlock") {
        try engine.unlock(passcode: "correct horse")
        return "unlocked"
    }
    step("delete") {
        "\(try engine.delete(ItemQuery(itemClass: .genericPassword, attributes: account), for: caller)) item deleted"
    }
    step("find the deleted item") { "\(try engine.copyMatching(find, for: caller).count) item" }
} catch {
    print("cannot open the keychain: \(error)")
    exit(1)
}
