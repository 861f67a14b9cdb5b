import Foundation
import TestSupport

extension TestHome {
    /// The tool with its default keychain served by `daemon` (`KEYCHAIN_DAEMON`); `KEYCHAIN_HOME` stays set but
    /// unused, so anything embedded written by mistake would show there.
    func tool(through daemon: DaemonProcess) -> SecurityProcess {
        var tool = self.tool
        tool.environment["KEYCHAIN_DAEMON"] = daemon.socketPath
        return tool
    }
}
