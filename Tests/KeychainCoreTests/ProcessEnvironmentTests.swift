import Foundation
import KeychainClient
import KeychainCore
import Testing

@Suite("The environment the defaults are read from")
struct ProcessEnvironmentTests {
    @Test("the process's environment is read variable by variable, as ProcessInfo has it")
    func current() {
        let everything = ProcessInfo.processInfo.environment
        for name in ["PATH", "HOME", "SWIFT_BACKTRACE", "SWIFT_KEYCHAIN_UNSET_\(UUID().uuidString)"] {
            #expect(ProcessEnvironment.current[name] == everything[name], "\(name)")
        }
    }

    @Test("given variables are the only ones; an empty value is set but not non-empty")
    func given() {
        let environment: ProcessEnvironment = ["KEYCHAIN_HOME": "/k", "XDG_DATA_HOME": ""]
        #expect(environment["KEYCHAIN_HOME"] == "/k")
        #expect(environment["XDG_DATA_HOME"] == "")
        #expect(environment.nonEmpty("XDG_DATA_HOME") == nil)
        #expect(environment["PATH"] == nil)
        #expect(ProcessEnvironment(["HOME": "/h"]).nonEmpty("HOME") == "/h")
        #expect(KeychainStorage.defaultDirectory(environment: environment).path == "/k")
        #expect(
            KeychainStorage.defaultStorage(environment: ["KEYCHAIN_DAEMON": "/run/k.sock"])
                == .daemon(socketPath: "/run/k.sock"))
    }
}
