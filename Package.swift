// swift-tools-version:6.0
import PackageDescription

// Layers point one way (Sources/README.md draws them):
//   fcm-emu → FCMScenario → FCMServer → FCMControl → FCMHTTP, FCMXMPP → FCMTransport, FCMLegacyFormat
//   → FCMSnapshot → FCMCoreJSON → FCMCore → FCMJSON
// FCMCore (the engine) holds a message's free-form parts as FCMJSON's value tree and never parses or
// encodes; FCMCoreJSON reads and writes fault rules as JSON; the fronts (FCMHTTP, FCMXMPP) never
// import each other.
// The dashboard's files (Sources/FCMControl/Dashboard/ui/), each embedded in the binary; `Dashboard.files`
// names them for the router, and DashboardAPITests checks that the three lists agree.
let dashboardFiles = [
    "activity.js", "api.js", "app.js", "connections.js", "dom.js", "eviction.js", "examples.js", "feed.js", "icon.svg", "inbox.js", "index.html",
    "links.js", "logview.js", "outcomes.js", "refusals.js", "style.css", "timeline.js",
]

let package = Package(
    name: "fcm-emu",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fcm-emu", targets: ["fcm-emu"]),
        .library(name: "FCMJSON", targets: ["FCMJSON"]),
        // For the Fuzz package's YAML harness.
        .library(name: "FCMYAML", targets: ["FCMYAML"]),
        .library(name: "FCMCore", targets: ["FCMCore"]),
        .library(name: "FCMTransport", targets: ["FCMTransport"]),
        .library(name: "FCMHTTP", targets: ["FCMHTTP"]),
        .library(name: "FCMControl", targets: ["FCMControl"]),
        .library(name: "FCMServer", targets: ["FCMServer"]),
        .library(name: "FCMXMPP", targets: ["FCMXMPP"]),
        .library(name: "FCMMCS", targets: ["FCMMCS"]),
        // The test harnesses, for this package's tests, the Fuzz package and users' own Swift tests.
        .library(name: "FCMTesting", targets: ["FCMTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .target(name: "FCMJSON"),
        // libyaml, from Debian's libyaml-dev (apt-get install libyaml-dev), linked statically (its
        // module map says how); and our YAML nodes read with it, for scenario, config and fault files.
        .systemLibrary(name: "CYAML"),
        .target(name: "FCMYAML", dependencies: ["CYAML", "FCMJSON"]),
        .target(
            name: "FCMCore",
            dependencies: [
                // The value tree of a message's free-form parts; the core never parses or encodes.
                "FCMJSON",
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                // A web device's Web Push subscription keys (P-256), made and checked where devices are.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "FCMCoreJSON", dependencies: ["FCMCore", "FCMJSON"]),
        // Snapshots: the world as a directory of JSON Lines, and back.
        .target(name: "FCMSnapshot", dependencies: ["FCMCore", "FCMJSON", "FCMCoreJSON"]),
        // The transport floor beneath the fronts: listeners, TLS and the local
        // CA, HTTP/1.1 and HTTP/2 connections, the proxy, the router and the request and response
        // types. It knows the core's error model and events, never a front.
        .target(
            name: "FCMTransport",
            dependencies: [
                "FCMCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The FCM fronts: HTTP v1, batch, legacy HTTP and device groups, IID, OAuth and the
        // metadata server, each answering in its own dialect.
        .target(
            name: "FCMHTTP",
            dependencies: [
                "FCMCore",
                "FCMJSON",
                "FCMLegacyFormat",
                "FCMSnapshot",
                "FCMTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The control plane: the control API with its OpenAPI document and
        // snapshot routes, the event streams and the dashboard.
        .target(
            name: "FCMControl",
            dependencies: [
                "FCMCore",
                "FCMJSON",
                "FCMCoreJSON",
                "FCMLegacyFormat",
                "FCMSnapshot",
                "FCMTransport",
                // The fronts' credentials: service accounts, grants and the keys made for them.
                "FCMHTTP",
                // CCS's JSON, for the upstream message the control API echoes as the app server gets it.
                "FCMXMPP",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // Compiled into the binary from their source files (SwiftPM's `PackageResources`), so the
            // binary needs nothing beside it: the control API's OpenAPI document and the dashboard.
            resources: [.embedInCode("Resources/openapi.json")] + dashboardFiles.map { .embedInCode("Dashboard/ui/\($0)") }
        ),
        // The emulator's HTTP server: the one route table (the fronts and the control plane, behind
        // the access policy, transport faults and refusal events) and its listeners.
        .target(
            name: "FCMServer",
            dependencies: [
                "FCMCore",
                "FCMJSON",
                "FCMLegacyFormat",
                "FCMTransport",
                "FCMHTTP",
                "FCMControl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The legacy message format, shared by legacy HTTP and XMPP (CCS uses the same keys).
        .target(name: "FCMLegacyFormat", dependencies: ["FCMCore", "FCMJSON"]),
        .target(
            name: "FCMXMPP",
            dependencies: [
                "FCMCore", "FCMJSON", "FCMLegacyFormat", "FCMTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // MCS, the connection real receivers hold open (docs/receivers.md): framing, the protobuf
        // messages, aesgcm encryption to a receiver's keys, the listener.
        .target(
            name: "FCMMCS",
            dependencies: [
                "FCMCore", "FCMJSON", "FCMTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "FCMScenario",
            dependencies: [
                "FCMCore", "FCMHTTP", "FCMControl", "FCMServer", "FCMTransport", "FCMXMPP", "FCMJSON", "FCMSnapshot",
                "FCMYAML",
            ]
        ),
        .executableTarget(
            name: "fcm-emu",
            dependencies: [
                "FCMCore",
                "FCMCoreJSON",
                "FCMHTTP",
                "FCMControl",
                "FCMServer",
                "FCMTransport",
                "FCMXMPP",
                "FCMMCS",
                "FCMScenario",
                "FCMSnapshot",
                "FCMJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                "FCMYAML",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The harnesses every test target would otherwise rebuild: an emulator
        // with device and send helpers, its routes in process, a server on free loopback ports,
        // scratch directories. Tests and the Fuzz package only: no target of the binary uses it.
        .target(
            name: "FCMTesting",
            dependencies: [
                "FCMCore", "FCMControl", "FCMServer", "FCMTransport", "FCMJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTP1Wire: the HTTP/1.1 pipeline without a socket, for the fuzzer; and
                // HTTP1DecoderComparison: the request decoder held to NIO's llhttp decoder.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // RawHTTP2Client: HTTP/2 frames over TLS, byte by byte.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "FCMJSONTests", dependencies: ["FCMJSON"]),
        .testTarget(name: "FCMYAMLTests", dependencies: ["FCMYAML", "FCMJSON"]),
        .testTarget(
            name: "FCMEmuTests",
            dependencies: [
                "fcm-emu", "FCMCore", "FCMHTTP", "FCMJSON", "FCMServer", "FCMTesting", "FCMTransport", "FCMXMPP",
                // A quiet logger for the MCP server's protocol tests.
                .product(name: "Logging", package: "swift-log"),
                // serve's services in a group of the test's own (GracefulShutdownTests).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "FCMScenarioTests", dependencies: ["FCMScenario", "FCMCore", "FCMSnapshot", "FCMTesting"]),
        .testTarget(
            name: "FCMXMPPTests",
            dependencies: [
                "FCMXMPP", "FCMCore", "FCMJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                // ByteToMessageDecoderVerifier, for the stanza decoder.
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "FCMCoreTests", dependencies: ["FCMCore", "FCMTesting"]),
        .testTarget(
            name: "FCMMCSTests",
            dependencies: [
                "FCMMCS", "FCMCore", "FCMTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "FCMSnapshotTests", dependencies: ["FCMSnapshot", "FCMCore", "FCMJSON", "FCMTesting"]),
        .testTarget(name: "FCMLegacyFormatTests", dependencies: ["FCMLegacyFormat", "FCMCore", "FCMJSON"]),
        // One test target per source target: what a module's tests need beyond it is the
        // harness (FCMTesting) and the NIO pieces they drive it with.
        .testTarget(name: "FCMCoreJSONTests", dependencies: ["FCMCoreJSON", "FCMCore", "FCMJSON"]),
        .testTarget(
            name: "FCMTransportTests",
            dependencies: [
                // FCMHTTP and FCMServer: a few tests drive the transport with a front's routes.
                "FCMTransport", "FCMCore", "FCMCoreJSON", "FCMJSON", "FCMHTTP", "FCMServer", "FCMTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "FCMHTTPTests",
            dependencies: [
                // FCMServer: a few tests mount a front on the server's route table.
                "FCMHTTP", "FCMTransport", "FCMCore", "FCMCoreJSON", "FCMJSON", "FCMServer", "FCMTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "FCMControlTests",
            dependencies: [
                // FCMXMPP: one test refuses a message on each front, CCS included (RefusalEventTests).
                "FCMControl", "FCMHTTP", "FCMServer", "FCMTransport", "FCMCore", "FCMJSON", "FCMSnapshot", "FCMXMPP", "FCMTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "FCMServerTests",
            dependencies: [
                "FCMServer", "FCMHTTP", "FCMTransport", "FCMCore", "FCMCoreJSON", "FCMJSON", "FCMTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // An HTTP/2 client over TLS, for faults that must act on the connection.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
