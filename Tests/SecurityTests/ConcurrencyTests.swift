import Foundation
import KeychainCore
import Security
import Testing

/// The SecItem functions may be called from many tasks at once; a scoped keychain reaches child tasks.
@Suite struct ConcurrencyTests {
    @Test func concurrentAddsAndReadsFromChildTasks() async throws {
        let keychain = try TestSecItemKeychain()
        let scoped = SecItemKeychain(backend: keychain.engine, caller: testApp)
        let statuses = await scoped.run {
            await withTaskGroup(of: [OSStatus].self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let account = "user-\(index)"
                        let added = SecItemAdd(
                            password(account, [kSecValueData as String: bytes(account)]) as CFDictionary, nil)
                        let read = secret(account) == account ? errSecSuccess : errSecItemNotFound
                        let duplicate = SecItemAdd(password(account) as CFDictionary, nil)
                        return [added, read, duplicate]
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.count == 16)
        #expect(statuses.allSatisfy { $0 == [errSecSuccess, errSecSuccess, errSecDuplicateItem] })
    }
}
