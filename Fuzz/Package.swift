// swift-tools-version:5.4
import PackageDescription

// libFuzzer harnesses for fcm-emu, kept out of the main package (as swift-nio-http2 does) so that
// the main build never needs the sanitizer runtimes. They use only the main package's library
// products. Build and run them with ./run (see README.md).
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's `main` on Linux
// (`-entry-point-function-name`, `--defsym main=…`) and a `-parse-as-library` harness, whose
// `main` is libFuzzer's, no longer links. The harnesses are compiled in the Swift 5 language mode.
let fuzzers = [
    "json", "condition", "v1", "legacy-json", "legacy-form", "groups", "iid", "batch", "token", "control", "xmpp", "snapshot", "mcs",
    "yaml", "http1",
]

let package = Package(
    name: "fcm-emu-fuzz",
    platforms: [.macOS("15.0")],
    dependencies: [
        .package(name: "fcm-emu", path: ".."),
        // Only the token fuzzer needs it, to sign the assertions it builds.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "FCMCore", package: "fcm-emu"),
                .product(name: "FCMHTTP", package: "fcm-emu"),
                .product(name: "FCMTransport", package: "fcm-emu"),
                .product(name: "FCMControl", package: "fcm-emu"),
                .product(name: "FCMServer", package: "fcm-emu"),
                .product(name: "FCMJSON", package: "fcm-emu"),
                // The in-process route table the tests call too.
                .product(name: "FCMTesting", package: "fcm-emu"),
            ]
        )
    ] + fuzzers.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: [
                "FuzzSupport",
                .product(name: "FCMCore", package: "fcm-emu"),
                .product(name: "FCMHTTP", package: "fcm-emu"),
                .product(name: "FCMTransport", package: "fcm-emu"),
                .product(name: "FCMControl", package: "fcm-emu"),
                .product(name: "FCMServer", package: "fcm-emu"),
                .product(name: "FCMJSON", package: "fcm-emu"),
                .product(name: "FCMXMPP", package: "fcm-emu"),
                .product(name: "FCMMCS", package: "fcm-emu"),
                .product(name: "FCMYAML", package: "fcm-emu"),
                .product(name: "FCMTesting", package: "fcm-emu"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/\(name)"
        )
    }
)
