// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "swift-keychain",
    products: [
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
        .library(name: "Keychain", targets: ["Keychain"]),
        .library(name: "FileProtection", targets: ["FileProtection"]),
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
        .target(
            name: "FileProtection",
            dependencies: ["KeychainCore"]
        ),
        .executableTarget(
            name: "keychain-bench",
            dependencies: ["KeychainCore", "FileProtection", "CSQLite", "CSodium"]
        ),
        .executableTarget(
            name: "fileprotection-fuzz",
            dependencies: ["FileProtection", "KeychainCore"]
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
        .testTarget(
            name: "FileProtectionTests",
            dependencies: ["FileProtection", "KeychainCore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
