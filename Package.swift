// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-keychain",
    products: [
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
        .library(name: "Keychain", targets: ["Keychain"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "KeychainCore",
            dependencies: ["CSodium", "CSQLite"]
        ),
        .target(
            name: "Keychain",
            dependencies: ["KeychainCore"]
        ),
        .executableTarget(
            name: "keychain-bench",
            dependencies: ["KeychainCore", "CSQLite"]
        ),
        .executableTarget(
            name: "keychain-demo",
            dependencies: ["KeychainCore"]
        ),
        .executableTarget(
            name: "keychain-stress",
            dependencies: ["KeychainCore"]
        ),
        .testTarget(
            name: "KeychainCoreTests",
            dependencies: ["KeychainCore", "CSQLite"]
        ),
        .testTarget(
            name: "KeychainTests",
            dependencies: ["Keychain", "KeychainCore", "CSQLite"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
