// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMServer
@testable import fcm_emu
import FCMTesting
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// serve's services in one group, shut down as swift-service-lifecycle does it on a signal, the
/// way Hummingbird tests its application: a call in flight is answered, nothing listens after,
/// and the world is exported once the call's answer is out; a listener that cannot bind ends
/// the group with its error, after what did bind has closed.
@Suite("serve's services: start-up and graceful shutdown", .timeLimit(.minutes(1)))
struct GracefulShutdownTests {
    static func options(_ extra: [String]) throws -> (ServeOptions, ConfigFile?) {
        var serve = try FCMEmu.Serve.parse(
            ["--port", "0", "--set", "tlsPort=off", "--set", "xmppPort=off", "--set", "xmppTestPort=off"] + extra)
        serve.readyFile = nil
        return try serve.resolve(environment: [:])
    }

    /// The group serve runs, with `test` before its services: stopped last, it sees them stop.
    static func group(_ running: RunningEmulator, _ options: ServeOptions, test: some Service) async throws -> ServiceGroup {
        let services = try await EmulatorServices.emulator(
            running, options, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        return ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: ([test] + services).map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test func aCallInFlightIsAnsweredAndTheWorldExportedAfterIt() async throws {
        let scratch = try ScratchDirectory("shutdown")
        defer { scratch.cleanup() }
        let export = scratch.sub("export")
        let (options, file) = try Self.options(["--set", "stateDir=none", "--export-on-exit", export])
        let running = try RunningEmulator.prepare(options, file: file, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        // Every v1 send waits two seconds (emulator time, at speed 1): in flight when the stop begins.
        try running.emulator.addFaultRule(FaultRule(id: "slow", match: .init(api: .v1), action: .latency(millis: 2000)))
        let answered = Answered()
        let holder = GroupHolder()
        let test = CommandService {
            guard let server = try? await running.listening().server else { return 1 }
            let port = server.http.port
            let call = Task.detached {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 28\r\n\r\n{\"message\":{\"topic\":\"news\"}}")
                return try connection.readResponse().status
            }
            // Once the call has reached the world, the group is told to stop, as a signal does.
            await EventWaits.until(running.emulator) { !((try? $0.events(EventQuery(kinds: [.accepted]))) ?? []).isEmpty }
            await holder.group?.triggerGracefulShutdown()
            answered.set(try? await call.value)
            try? await gracefulShutdown()
            answered.listened(after: server.http.isListening)
            return 0
        }
        let group = try await Self.group(running, options, test: test)
        await holder.set(group)
        try await group.run()
        #expect(answered.status == 200, "the call in flight is answered")
        #expect(answered.listenedAfter == false, "nothing listens once the listeners' services have stopped")
        #expect(FileManager.default.fileExists(atPath: export + "/manifest.json"), "exported on the way out")
    }

    /// The listeners bind at once, and each adds its part of the info document (the ready file).
    @Test func everyListenerIsInTheInfoDocument() async throws {
        let (options, file) = try Self.options([
            "--set", "stateDir=none", "--set", "tlsPort=0", "--set", "xmppPort=0", "--set", "xmppTestPort=0", "--set", "mcsPort=0",
            "--set", "proxyPort=0",
        ])
        let running = try RunningEmulator.prepare(options, file: file, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let seen = Seen()
        let holder = GroupHolder()
        let test = CommandService {
            seen.server = try? await running.listening().server
            await holder.group?.triggerGracefulShutdown()
            try? await gracefulShutdown()
            return 0
        }
        let group = try await Self.group(running, options, test: test)
        await holder.set(group)
        try await group.run()
        let info = try #require(seen.server?.info)
        #expect(info["xmpp"]?["ports"]?.arrayValue?.count == 2)
        let tls = try #require(seen.server?.tlsDirectory)
        #expect(!FileManager.default.fileExists(atPath: tls), "the run's own CA goes with it (no state directory)")
        #expect(info["mcs"]?["port"] != nil && info["proxy"]?["port"] != nil && info["https"]?["port"] != nil)
    }

    @Test func aListenerThatCannotBindEndsTheGroupAfterTheOthersClose() async throws {
        try await withLiveServer { taken in try await Self.proxyPortTaken(taken.http.port) }
    }

    /// serve with its proxy on `taken`, a port in use.
    static func proxyPortTaken(_ taken: Int) async throws {
        let (options, file) = try Self.options(["--set", "stateDir=none", "--set", "proxyPort=\(taken)"])
        let running = try RunningEmulator.prepare(options, file: file, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let seen = Seen()
        let watcher = CommandService {
            let bound = try? await running.startup.wait { $0.server != nil }
            seen.server = bound?.server
            try? await gracefulShutdown()
            return 0
        }
        let group = try await Self.group(running, options, test: watcher)
        await #expect { try await group.run() } throws: {
            "\($0)".contains("cannot listen on 127.0.0.1:\(taken) (proxy, proxyPort): the port is in use")
        }
        let server = try #require(seen.server)
        #expect(!server.http.isListening, "the HTTP listener that did bind is closed")
        #expect(!running.startup.isComplete)
    }
}

private final class GroupHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var group_: ServiceGroup?
    func set(_ group: ServiceGroup) async { lock.withLock { group_ = group } }
    var group: ServiceGroup? { lock.withLock { group_ } }
}

private final class Answered: @unchecked Sendable {
    private let lock = NSLock()
    private var status_: Int?
    private var listenedAfter_: Bool?
    func set(_ status: Int?) { lock.withLock { status_ = status } }
    func listened(after: Bool) { lock.withLock { listenedAfter_ = after } }
    var status: Int? { lock.withLock { status_ } }
    var listenedAfter: Bool? { lock.withLock { listenedAfter_ } }
}

private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var server_: EmulatorServer?
    var server: EmulatorServer? {
        get { lock.withLock { server_ } }
        set { lock.withLock { server_ = newValue } }
    }
}
