// SPDX-License-Identifier: Apache-2.0

import Crypto
import FCMCore
import FCMJSON
@testable import FCMServer
import FCMTesting
import Foundation
import NIOPosix
import Synchronization
import Testing
import _CryptoExtras

@testable import FCMHTTP

/// A service account's 2048-bit RSA key is made on a worker, never on an event
/// loop, a few at a time; naming the account makes no key; and the accounts kept are bounded by
/// `maxProjects`, forgetting those (and their files) of projects that are gone.
@Suite("Service-account keys")
struct ServiceAccountKeyTests {
    /// One real key, made once per test and handed out by the fake maker (fast and deterministic).
    static func fixedKey() throws -> _RSA.Signing.PrivateKey { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    /// A key maker that records whether it ran on an event loop and holds each key until released.
    final class Latch: Sendable {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let onLoop = Mutex<[Bool]>([])
        let key: _RSA.Signing.PrivateKey

        init() throws { key = try fixedKey() }

        func make() -> _RSA.Signing.PrivateKey {
            let loop = MultiThreadedEventLoopGroup.currentEventLoop != nil
            onLoop.withLock { $0.append(loop) }
            started.signal()
            // Never block a loop (the old behaviour): the test's expectation on `onLoop` fails instead.
            if !loop { release.wait() }
            return key
        }

        func waitStarted() -> Bool { started.wait(timeout: .now() + 10) == .success }
    }

    private func withServer(
        keys: KeyPool, _ body: (EmulatorServer, Emulator) async throws -> Void
    ) async throws {
        var fronts = FrontConfiguration(authMode: .lax)
        fronts.credentials = FrontCredentials(stateDirectory: nil, wallSeconds: { 0 }, keys: keys)
        // One loop, so every connection shares the loop a key would have stalled.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let emulator = Emulator()
        do {
            try await withLiveServer(emulator, fronts: fronts, group: group) { try await body($0, emulator) }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    private static func ask(_ project: String, port: Int) throws -> RawConnection {
        let connection = try RawConnection(port: port)
        try connection.send("GET /emulator/v1/projects/\(project)/serviceAccount HTTP/1.1\r\nHost: localhost\r\n\r\n")
        return connection
    }

    @Test func aKeyIsMadeOffTheLoopWhileTheLoopServesOtherConnections() async throws {
        let latch = try Latch()
        try await withServer(keys: KeyPool(makeKey: latch.make)) { server, _ in
            let asking = try Self.ask(DemoProject.id, port: server.http.port)
            #expect(latch.waitStarted())
            // The key is held; the only loop answers another connection meanwhile.
            let other = try RawConnection(port: server.http.port)
            try other.send("GET /emulator/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            latch.release.signal()
            let answer = try asking.readResponse()
            #expect(answer.status == 200)
            let keyFile = try JSONParser.parse(Array(answer.body.utf8))
            #expect(keyFile["client_email"]?.stringValue == ServiceAccounts.email(DemoProject.id))
            #expect(keyFile["token_uri"]?.stringValue == "http://localhost/token")
            #expect(latch.onLoop.withLock { $0 } == [false], "the key was made on an event loop")
            // Made once: the next request is answered from the map.
            #expect(try Self.ask(DemoProject.id, port: server.http.port).readResponse().status == 200)
            #expect(latch.onLoop.withLock { $0.count } == 1)
        }
    }

    @Test func pastThePoolsQueueTheAnswerIs503WithRetryAfter() async throws {
        let latch = try Latch()
        try await withServer(keys: KeyPool(maxRunning: 1, maxQueued: 0, makeKey: latch.make)) { server, emulator in
            try emulator.createProject(id: "second")
            let first = try Self.ask(DemoProject.id, port: server.http.port)
            #expect(latch.waitStarted())
            let refused = try Self.ask("second", port: server.http.port).readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.body.contains("\"UNAVAILABLE\""))
            // The same project joins the key on its way instead of asking for another.
            let joined = try Self.ask(DemoProject.id, port: server.http.port)
            latch.release.signal()
            #expect(try first.readResponse().status == 200)
            #expect(try joined.readResponse().status == 200)
            #expect(latch.onLoop.withLock { $0 } == [false])
        }
    }

    @Test func thePoolRunsAFewJobsQueuesAFewMoreAndJoinsRepeats() throws {
        let release = DispatchSemaphore(value: 0)
        let pool = KeyPool(maxRunning: 1, maxQueued: 1)
        let done = { @Sendable () -> Result<ServiceAccount, FCMError> in
            release.wait()
            return .failure(FCMError(.internalError, "held"))
        }
        let a = try #require(pool.submit("a", done))
        let b = try #require(pool.submit("b", done))
        #expect(pool.submit("c", done) == nil, "past maxRunning + maxQueued")
        #expect(pool.submit("a", done) === a, "a repeat joins the job under way")
        #expect(pool.pending == 2)
        let finished = DispatchSemaphore(value: 0)
        b.onDone { finished.signal() }
        release.signal()
        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(a.result != nil && b.result != nil)
    }

    @Test func namingTheAccountMakesNoKey() throws {
        let made = Atomic<Int>(0)
        let key = try Self.fixedKey()
        var fronts = FrontConfiguration()
        fronts.credentials = FrontCredentials(
            stateDirectory: nil, wallSeconds: { 0 },
            keys: KeyPool(makeKey: {
                made.add(1, ordering: .relaxed)
                return key
            }))
        let api = InProcess(Emulator(), fronts: fronts)
        let flavor = [("Metadata-Flavor", "Google")]
        let email = api.call("GET", "/computeMetadata/v1/instance/service-accounts/default/email", headers: flavor)
        #expect(email.bodyText == ServiceAccounts.email(DemoProject.id))
        #expect(api.call("GET", "/computeMetadata/v1/instance/service-accounts/", headers: flavor).status == 200)
        #expect(made.load(ordering: .relaxed) == 0)
        // In process (not an event loop), the key file is made on the caller's thread.
        #expect(api.call("GET", "/emulator/v1/projects/\(DemoProject.id)/serviceAccount").status == 200)
        #expect(made.load(ordering: .relaxed) == 1)
    }

    @Test func accountsOfGoneProjectsAreForgottenPastMaxProjects() throws {
        let directory = try ScratchDirectory("accounts").sub("state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try Self.fixedKey()
        var settings = EmulatorSettings()
        settings.maxProjects = 3  // the demo project is one
        let credentials = FrontCredentials(stateDirectory: directory, wallSeconds: { 0 }, keys: KeyPool(makeKey: { key }))
        var fronts = FrontConfiguration(stateDirectory: directory)
        fronts.credentials = credentials
        let emulator = Emulator(settings: settings)
        let api = InProcess(emulator, fronts: fronts)
        let file = { (project: String) in FileManager.default.fileExists(atPath: directory + "/service-accounts/\(project).json") }
        try emulator.createProject(id: "app-a")
        try emulator.createProject(id: "app-b")
        for project in [DemoProject.id, "app-a", "app-b"] { _ = try api.json("GET", "/emulator/v1/projects/\(project)/serviceAccount") }
        #expect(credentials.accounts.count == 3)
        // A deleted project's account is kept while there is room (its key file still works if
        // the project comes back) …
        try emulator.deleteProject(id: "app-b")
        #expect(credentials.accounts.count == 3 && file("app-b"))
        // … and forgotten, with its file, when another project needs the room.
        try emulator.createProject(id: "app-c")
        _ = try api.json("GET", "/emulator/v1/projects/app-c/serviceAccount")
        #expect(credentials.accounts.count == 3)
        #expect(!file("app-b") && file("app-a") && file("app-c"))
        #expect(credentials.accounts.account(email: ServiceAccounts.email("app-b")) == nil)
    }

    /// The family of create / delete / fetch sequences (seeded, so a failure replays): the accounts
    /// kept never pass the cap, a live project's account is never forgotten, and the key files on
    /// disk are exactly the accounts kept.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func accountsStayWithinTheCapForAnySequence(seed: UInt64) throws {
        let directory = try ScratchDirectory("accounts").sub("state")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let key = try Self.fixedKey()
        var settings = EmulatorSettings()
        settings.maxProjects = 4
        let credentials = FrontCredentials(stateDirectory: directory, wallSeconds: { 0 }, keys: KeyPool(makeKey: { key }))
        var fronts = FrontConfiguration(stateDirectory: directory)
        fronts.credentials = credentials
        let emulator = Emulator(settings: settings)
        let api = InProcess(emulator, fronts: fronts)
        var random = SeededRandom(seed: seed)
        var fetched: [String: String] = [:]  // live project → key id handed out
        for _ in 0..<60 {
            let id = "proj-\(random.next() % 6)"
            switch random.next() % 3 {
            case 0: _ = try? emulator.createProject(id: id)
            case 1:
                if (try? emulator.deleteProject(id: id)) != nil { fetched[id] = nil }
            default:
                let answer = api.call("GET", "/emulator/v1/projects/\(id)/serviceAccount")
                if answer.status == 200, let keyId = try JSONParser.parse(answer.body)["private_key_id"]?.stringValue {
                    #expect(fetched[id] == nil || fetched[id] == keyId, "a live project's key changed")
                    fetched[id] = keyId
                }
            }
            let live = emulator.projects().map(\.id)
            #expect(credentials.accounts.count <= max(settings.maxProjects, live.count))
            for (project, keyId) in fetched {
                #expect(credentials.accounts.account(email: ServiceAccounts.email(project))?.keyId == keyId)
            }
            let files = Set(((try? FileManager.default.contentsOfDirectory(atPath: directory + "/service-accounts")) ?? []))
            let kept = Set((live + ["proj-0", "proj-1", "proj-2", "proj-3", "proj-4", "proj-5"]).filter {
                credentials.accounts.account(email: ServiceAccounts.email($0)) != nil
            }.map { $0 + ".json" })
            #expect(files == kept)
        }
    }

    /// A snapshot's accounts count toward the cap like any other: importing more than the world
    /// has room for keeps only those of projects that exist.
    @Test func adoptedAccountsCountTowardTheCap() throws {
        let key = try Self.fixedKey()
        let made = ServiceAccounts(stateDirectory: nil, keys: KeyPool(makeKey: { key }))
        let everyone = AccountRoom(cap: 100, projects: Set((0..<10).map { "p\($0)" }))
        let imported = try (0..<10).map { try made.account(forProject: "p\($0)", room: everyone) }
        let accounts = ServiceAccounts(stateDirectory: nil, keys: KeyPool(makeKey: { key }))
        accounts.adopt(imported, room: AccountRoom(cap: 3, projects: ["p1", "p2"]))
        #expect(accounts.count == 2)
        #expect(accounts.account(email: ServiceAccounts.email("p1"))?.keyId == imported[1].keyId)
    }
}
