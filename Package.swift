// swift-tools-version:6.0
import PackageDescription

/// The programs that hold secrets bind every symbol when they start, and the table the dynamic linker fills is
/// read-only after (full RELRO): no function's first call is resolved later, on a thread whose vector registers
/// may still hold a secret (the resolver saves them all on the stack), and no resolved pointer can be overwritten.
let bindEverySymbolAtStart: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "-z", "-Xlinker", "relro"])
]

let package = Package(
    name: "swift-keychain",
    products: [
        .library(name: "KeychainCore", targets: ["KeychainCore"]),
        // Where a process's keychain is and the backend that serves it (KeychainStorage.defaultStorage,
        // KeychainBackends), for programs that reach the seam below Keychain and Security.
        .library(name: "KeychainClient", targets: ["KeychainClient"]),
        .library(name: "Keychain", targets: ["Keychain"]),
        // The macOS `security` tool's verbs. The target is not named `security`: next to the `Security` module its
        // directory and module files would differ from Security's only by case, which a case-insensitive file
        // system (macOS's, Windows') cannot hold apart.
        .executable(name: "security", targets: ["security-tool"]),
        .library(name: "FileProtection", targets: ["FileProtection"]),
        // Apple's CommonCrypto digests, HMAC, AES and PBKDF2, which key code imports beside Security.
        .library(name: "CommonCrypto", targets: ["CommonCrypto"]),
        .library(name: "KeychainSync", targets: ["KeychainSync"]),
        // The TPM 2.0 as the keychain's hardware root of trust (DESIGN §15, issue 26).
        .library(name: "KeychainTPM", targets: ["KeychainTPM"]),
        .executable(name: "keychaind", targets: ["keychaind"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // libpq's API for the PostgreSQL sync store, loaded with dlopen on first use instead of linked (its header
        // comes from Debian's libpq-dev, its library from libpq5).
        .target(name: "CLibPQ", dependencies: ["CSystem"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // OpenSSL's libcrypto, for RSA, the NIST curves, X.509 and PKCS#12 (Security's keys and certificates) and the
        // Secret Service's Diffie-Hellman session.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // libsystemd's sd-bus, which the Secret Service speaks D-Bus through.
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // The TPM 2.0 software stack's ESAPI (tpm2-tss), loaded with dlopen on first use instead of linked, so a machine
        // without libtss2 still runs (its headers come from Debian's libtss2-dev).
        .target(name: "CTSS2", dependencies: ["CSystem"]),
        // System calls Swift's Glibc module hides (they need _GNU_SOURCE): prctl, O_TMPFILE, explicit_bzero.
        .target(name: "CSystem"),
        // A SQLite VFS over the default one that writes a commit's WAL frames in one system call (issue 23).
        .target(name: "CSQLiteWAL", dependencies: ["CSQLite"]),
        // The TPM 2.0 (DESIGN §15): a storage primary key, sealed data, HMAC keys the TPM's dictionary-attack
        // protection guards, NV counters and P-256 keys that never leave it. Below KeychainCore, which may use it.
        .target(name: "KeychainTPM", dependencies: ["CTSS2", "CSystem"]),
        .target(
            name: "KeychainCore",
            dependencies: ["CSodium", "CSQLite", "CSQLiteWAL", "CSystem", "KeychainTPM"]
        ),
        // Keys on OpenSSL's libcrypto (RSA, the NIST curves), in Apple's representations and algorithms: the layer
        // under Security's SecKey, and the keys keychaind will hold for apps.
        .target(
            name: "KeychainKeys",
            dependencies: ["KeychainCore", "KeychainTPM", "CLibCrypto"]
        ),
        // Apple's CommonCrypto (CC_SHA256, CCHmac, CCCrypt, CCKeyDerivationPBKDF) on OpenSSL's libcrypto.
        .target(name: "CommonCrypto", dependencies: ["CLibCrypto"]),
        // keychaind's protocol: the messages, their wire format, and the SOCK_SEQPACKET socket they travel on.
        .target(
            name: "KeychainWire",
            dependencies: ["KeychainCore", "CSystem"]
        ),
        // Where a process's keychain is and the backend that serves it: the storage rule, the factory with its cache
        // of open engines, and keychaind's client.
        .target(
            name: "KeychainClient",
            dependencies: ["KeychainCore", "KeychainWire", "CSystem"]
        ),
        // The prompts for a passcode or password (the terminal, pinentry) and the authentication loop that asks
        // them and retries, for the APIs that ask a person: keychaind and the engine never prompt.
        .target(
            name: "KeychainPrompts",
            dependencies: ["KeychainCore", "KeychainClient", "CSystem"]
        ),
        .target(
            name: "Keychain",
            dependencies: ["KeychainCore", "KeychainClient", "KeychainWire", "KeychainPrompts", "KeychainKeys"]
        ),
        .target(
            name: "FileProtection",
            dependencies: ["KeychainCore", "KeychainClient", "CSystem"]
        ),
        // Sync of synchronizable items between a user's devices through a store that sees only ciphertext (DESIGN §12).
        .target(
            name: "KeychainSync",
            dependencies: ["KeychainCore", "CLibPQ", "CSystem"]
        ),
        .executableTarget(
            name: "keychain-bench",
            dependencies: [
                "Keychain", "KeychainCore", "KeychainClient", "KeychainWire", "KeychainSync", "FileProtection",
                "KeychainKeys",
                "KeychainTPM", "CLibCrypto", "CSQLite", "CSodium",
            ]
        ),
        // The whole-process floor of `security find-generic-password -w` (C: opens the SQLite file, reads one row).
        .executableTarget(
            name: "keychain-bench-floor",
            dependencies: ["CSQLite"]
        ),
        .executableTarget(
            name: "fileprotection-fuzz",
            dependencies: ["FileProtection", "KeychainCore"]
        ),
        .executableTarget(
            name: "daemon-fuzz",
            dependencies: ["KeychainCore", "KeychainWire", "KeychainDaemon"]
        ),
        .executableTarget(
            name: "security-tool",
            dependencies: [
                "Keychain", "FileProtection", "KeychainCore", "KeychainClient", "KeychainPrompts", "KeychainSync",
                "CSystem",
            ],
            linkerSettings: bindEverySymbolAtStart
        ),
        // keychaind's server, a library so that tests and the fuzzer reach the dispatch the daemon runs: accepting
        // and serving connections, identities, the dispatcher, group commit, limits and quotas, background sync.
        .target(
            name: "KeychainDaemon",
            dependencies: ["KeychainCore", "KeychainWire", "KeychainSync", "KeychainKeys", "CSystem"]
        ),
        // The freedesktop Secret Service on the session bus, served from the user's keychain (issue 25).
        .executableTarget(
            name: "keychain-secret-service",
            dependencies: [
                "KeychainCore", "KeychainClient", "KeychainKeys", "KeychainPrompts", "CSDBus", "CLibCrypto",
            ],
            linkerSettings: bindEverySymbolAtStart
        ),
        .executableTarget(
            name: "keychaind",
            dependencies: ["KeychainCore", "KeychainWire", "KeychainDaemon", "CSystem"],
            linkerSettings: bindEverySymbolAtStart
        ),
        // One operation on a keychaind socket from a real process: the daemon identity tests install copies of it
        // as registered apps and run them as another user.
        .executableTarget(
            name: "keychaind-probe",
            dependencies: [
                "KeychainCore", "KeychainWire", "KeychainClient", "KeychainDaemon", "KeychainPrompts", "FileProtection",
            ]
        ),
        // Asks for a secret with KeychainPrompts' prompters, as a program would: the prompt tests run it on a
        // pseudo-terminal, without one, and with a fake pinentry.
        .executableTarget(
            name: "prompt-probe",
            dependencies: ["KeychainCore", "KeychainClient", "KeychainPrompts"]
        ),
        // One verb on a sync store from a process of its own (SyncStores.open), for the stores' cross-process tests.
        .executableTarget(
            name: "sync-store-probe",
            dependencies: ["KeychainSync"]
        ),
        .executableTarget(
            name: "keychain-stress",
            dependencies: ["KeychainCore", "Keychain", "FileProtection"]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["KeychainCore", "KeychainWire", "KeychainClient", "KeychainPrompts"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "KeychainCoreTests",
            dependencies: [
                "TestSupport", "KeychainCore", "KeychainWire", "KeychainClient", "KeychainPrompts", "KeychainTPM",
                "CSQLite", "keychaind-probe", "prompt-probe",
            ]
        ),
        .testTarget(
            name: "KeychainTests",
            dependencies: [
                "TestSupport", "Keychain", "KeychainCore", "KeychainClient", "KeychainSync", "KeychainWire",
                "FileProtection", "CSQLite",
            ]
        ),
        .testTarget(
            name: "SecurityCLITests",
            dependencies: ["TestSupport", "security-tool", "Keychain", "keychain-secret-service"]
        ),
        .testTarget(
            name: "KeychainSyncTests",
            dependencies: ["TestSupport", "KeychainSync", "KeychainCore", "sync-store-probe"]
        ),
        .testTarget(
            name: "KeychainKeysTests",
            dependencies: ["TestSupport", "KeychainKeys", "KeychainCore", "CommonCrypto"]
        ),
        .testTarget(
            name: "KeychainTPMTests",
            dependencies: ["TestSupport", "KeychainTPM"]
        ),
        .testTarget(
            name: "FileProtectionTests",
            dependencies: ["TestSupport", "FileProtection", "KeychainCore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// `Security` is Apple's SecItem API for Linux. On Apple's platforms the system framework owns that module name, so
// the library, its tests and its tools exist only where Darwin does not (DESIGN §1).
#if !canImport(Darwin)
    package.products.append(.library(name: "Security", targets: ["Security"]))
    // Apple's LocalAuthentication (LAContext) for access control: the owner proves presence with the keychain
    // passcode. Like Security, the system framework owns the name on Apple's platforms.
    package.products.append(.library(name: "LocalAuthentication", targets: ["LocalAuthentication"]))
    package.targets += [
        .target(name: "Security", dependencies: ["KeychainCore", "KeychainClient", "KeychainPrompts", "KeychainKeys"]),
        .target(name: "LocalAuthentication", dependencies: ["KeychainCore", "KeychainClient", "KeychainPrompts"]),
        .executableTarget(name: "secitem-probe", dependencies: ["Security", "KeychainCore"]),
        // The seed's access-control code (Tests/SecurityTests/Seed004Code.swift, linked into its folder) as a
        // process, so a test can read the item back at a real (pseudo-)terminal.
        .executableTarget(
            name: "seed004-probe", dependencies: ["Security", "KeychainCore", "Keychain"], path: "Tests/Seed004Probe"),
        .executableTarget(name: "security-fuzz", dependencies: ["Security", "KeychainCore"]),
        .testTarget(
            name: "SecurityTests",
            dependencies: [
                "TestSupport", "Security", "LocalAuthentication", "KeychainCore", "KeychainKeys", "KeychainPrompts",
                "KeychainTPM", "secitem-probe",
                "seed004-probe",
            ]),
    ]
    // The `security` command takes Apple's status codes and messages from it (on Apple's platforms, from the framework).
    package.targets.first { $0.name == "security-tool" }?.dependencies.append("Security")
#endif
