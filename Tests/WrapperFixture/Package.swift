// swift-tools-version:6.0
import Foundation
import PackageDescription

// Keychain code written the way the popular wrapper libraries write theirs, built as a user's package would build it:
// it depends on the `Security` product of swift-keychain (the package two directories up) and on nothing else.
// `WrapperFixtureTests` in SecurityTests builds and runs it. Swift 5 mode, as most of that code is.
let root = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "WrapperFixture",
    dependencies: [.package(path: root.path)],
    targets: [
        .executableTarget(
            name: "wrapper-fixture",
            dependencies: [.product(name: "Security", package: root.lastPathComponent)]
        )
    ],
    swiftLanguageModes: [.v5]
)
