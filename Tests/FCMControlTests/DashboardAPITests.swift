// SPDX-License-Identifier: Apache-2.0

@testable import FCMControl
import FCMCore
@testable import FCMHTTP
import FCMJSON
import FCMTesting
import Foundation
import Testing

/// What the dashboard reads and does through the control API, and the files it is made of.
@Suite("Dashboard and its endpoints")
struct DashboardAPITests {
    let base = "/emulator/v1/projects/demo-fcm-emu"

    @Test func xmppConnectionsAreListedWithWhatTheyHoldAndWhetherTheyDrain() throws {
        let api = InProcess()
        _ = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"pixel"}"#, status: 201)
        let (connection, _) = try api.emulator.ccsConnect(sender: DemoProject.number)
        _ = try api.json("POST", "\(base)/devices/pixel:upstream", #"{"data":{"a":"1"}}"#, status: 201)
        #expect(api.emulator.ccsTake(connection).count == 1)
        var listed = try api.json("GET", "\(base)/xmpp")
        #expect(listed.string("connections.0.id") == String(connection))
        #expect(listed.string("connections.0.sender") == DemoProject.number)
        #expect(listed.string("connections.0.state") == "active")
        #expect(listed.at("connections.0.inFlight")?.int64Value == 1)
        api.emulator.ccsDraining(connection)
        listed = try api.json("GET", "\(base)/xmpp")
        #expect(listed.string("connections.0.state") == "draining")
        api.emulator.ccsDisconnect(connection)
        #expect(try api.json("GET", "\(base)/xmpp").at("connections")?.arrayValue?.isEmpty == true)
        #expect(api.call("GET", "/emulator/v1/projects/nope/xmpp").status == 404)
    }

    /// The send form gets a bearer the v1 API accepts on a project that checks credentials.
    @Test func aMintedAccessTokenSendsOnAStrictProject() throws {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/projects", #"{"id":"strict-app","number":"111222333444"}"#, status: 201)
        let device = try api.json("POST", "/emulator/v1/projects/strict-app/devices", #"{"platform":"web"}"#, status: 201)
        let send = #"{"message":{"token":"\#(try #require(device.string("token")))","data":{"k":"v"}}}"#
        let refused = api.call("POST", "/v1/projects/strict-app/messages:send", send, headers: [("Authorization", "Bearer made-up")])
        #expect(refused.status == 401)
        let minted = try api.json("POST", "/emulator/v1/projects/strict-app/accessTokens", status: 201)
        #expect(minted.string("tokenType") == "Bearer")
        let bearer = try #require(minted.string("accessToken"))
        let sent = api.call("POST", "/v1/projects/strict-app/messages:send", send, headers: [("Authorization", "Bearer \(bearer)")])
        #expect(sent.status == 200, "\(sent.bodyText)")
    }

    @Test func aDeviceShowsPendingCountsByKindAndItsLastDelivery() throws {
        let api = InProcess()
        let device = try api.json("POST", "\(base)/devices", #"{"platform":"android","name":"pixel","state":"offline"}"#, status: 201)
        #expect(device.at("lastDeliveryAt") == nil)
        let token = try #require(device.string("token"))
        for body in [
            #"{"message":{"token":"\#(token)","data":{"k":"1"}}}"#,
            #"{"message":{"token":"\#(token)","data":{"k":"2"},"android":{"collapse_key":"score"}}}"#,
            #"{"message":{"token":"\#(token)","data":{"k":"3"},"android":{"collapse_key":"score"}}}"#,
        ] {
            #expect(api.call("POST", "/v1/projects/demo-fcm-emu/messages:send", body).status == 200)
        }
        let stored = try api.json("GET", "\(base)/devices/pixel")
        #expect(stored.at("storedCollapsible")?.int64Value == 1)
        #expect(stored.at("storedNonCollapsible")?.int64Value == 1)
        let online = try api.json("PATCH", "\(base)/devices/pixel", #"{"state":"foreground"}"#)
        #expect(online.string("lastDeliveryAt") == "2026-01-01T00:00:00.000Z")
        #expect(online.at("storedCount")?.int64Value == 0)
    }

    @Test func theDashboardIsServedFromTheBinaryWithAStrictPolicy() throws {
        let api = InProcess()
        let redirect = api.call("GET", "/ui")
        #expect(redirect.status == 308)
        #expect(redirect.header("Location") == "/ui/")
        let page = api.call("GET", "/ui/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true)
        #expect(page.bodyText.contains("<html"))
        for name in Dashboard.files.keys {
            #expect(api.call("GET", "/ui/\(name)").status == 200, "\(name)")
        }
        for hostile in ["/ui/..%2FPackage.swift", "/ui/.hidden", "/ui/nope.js", "/ui/a/b.js"] {
            #expect(api.call("GET", hostile).status == 404, "\(hostile)")
        }
    }

    /// Every file of `Dashboard/ui/` is embedded (Package.swift's list) and served byte for byte.
    @Test func theEmbeddedDashboardIsItsSources() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources/FCMControl/Dashboard/ui")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == Dashboard.files.keys.sorted())
        let api = InProcess()
        for name in names {
            let source = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(api.call("GET", "/ui/\(name)").body == Array(source), "\(name)")
        }
    }
}
