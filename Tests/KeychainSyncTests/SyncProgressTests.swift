import Foundation
import KeychainCore
import TestSupport
import Testing

@testable import KeychainSync

/// Issue 27: the first pass of a device joining a large circle says how far it is (records received, then items
/// applied), for `security sync`'s progress line.
@Suite("Sync progress")
struct SyncProgressTests {
    @Test("a joining device's first pass reports its records received and its items applied, up to their totals")
    func firstPassProgress() throws {
        let circle = try TestCircle(.memory, devices: 1)
        let founder = circle.devices[0]
        for index in 0..<40 {
            try founder.add(account: "account-\(index)", service: "svc", secret: "secret-\(index)")
        }
        try circle.syncAll()
        let late = try circle.makeDevice(name: "late")
        try circle.admit(late, by: founder)
        try late.view.deliverAll()
        var heard: [SyncProgress] = []
        _ = try late.sync.syncOnce { heard.append($0) }
        let received = heard.filter { $0.phase == .receiving }
        let applied = heard.filter { $0.phase == .applying }
        #expect(received.last.map { $0.done == $0.total && $0.total > 0 } == true, "\(received)")
        #expect(applied.last.map { $0.done == $0.total && $0.total >= 40 } == true, "\(applied)")
        #expect(zip(applied, applied.dropFirst()).allSatisfy { $0.done < $1.done })
        #expect(heard.firstIndex { $0.phase == .applying } ?? 0 > heard.lastIndex { $0.phase == .receiving } ?? 0)
        #expect(try late.secret(account: "account-39", service: "svc") == "secret-39")
    }
}
