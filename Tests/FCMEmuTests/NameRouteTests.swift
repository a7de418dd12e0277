// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMJSON
import FCMTransport
import FCMXMPP
import Foundation
import Testing

@testable import fcm_emu

/// The Python name route `exec` sets up (docs/unmodified-apps.md, "The Python name route"): the
/// table from the info document, PYTHONPATH, and the sitecustomize run by a real Python when one
/// is on PATH.
@Suite("exec: the Python name route")
struct NameRouteTests {
    typealias T = ExecTestSupport

    func info(https: Int? = 41001, xmpp: [Int] = [41003], mcs: Int? = nil, host: String = "127.0.0.1") -> JSONValue {
        .object(omittingNils: [
            ("http", .object([("host", .string(host)), ("port", .int(41000)), ("url", .string("http://\(host):41000"))])),
            ("https", https.map { .object([("host", .string(host)), ("port", .int($0))]) }),
            ("xmpp", .object([("host", .string(host)), ("ports", .array(xmpp.map { .int($0) }))])),
            ("mcs", mcs.map { .object([("port", .int($0))]) }),
        ])
    }

    @Test func googlesNamesGoToTheTLSAndXMPPPorts() {
        let routes = Dictionary(NameRoute.routes(info: info()), uniquingKeysWith: { first, _ in first })
        for host in FrontHosts.https { #expect(routes["\(host):443"] == "127.0.0.1:41001") }
        // One XMPP listener stands for FCM's production port, as the proxy pairs them.
        for host in XMPPServer.hosts {
            #expect(routes["\(host):5235"] == "127.0.0.1:41003")
            #expect(routes["\(host):5236"] == nil)
        }
        #expect(routes["mtalk.google.com:5228"] == nil, "no MCS listener in the info document")
        #expect(routes.count == FrontHosts.https.count + XMPPServer.hosts.count)
    }

    @Test func theMCSPortOnceTheInfoDocumentHasOne() {
        let routes = Dictionary(NameRoute.routes(info: info(mcs: 41005)), uniquingKeysWith: { first, _ in first })
        #expect(routes["mtalk.google.com:5228"] == "127.0.0.1:41005")
    }

    @Test func noTLSPortNoHTTPSRoutes() {
        let routes = NameRoute.routes(info: info(https: nil, xmpp: []))
        #expect(routes.isEmpty)
        #expect(NameRoute.routes(info: info(https: nil)).allSatisfy { $0.0.hasSuffix(":5235") })
    }

    @Test func aListenerOnEveryAddressIsReachedOnLoopback() {
        #expect(NameRoute.routes(info: info(host: "0.0.0.0")).first?.1 == "127.0.0.1:41001")
        #expect(NameRoute.routes(info: info(host: "::")).first?.1 == "[::1]:41001")
        #expect(NameRoute.routes(info: info(host: "::1")).first?.1 == "[::1]:41001")
    }

    @Test func theTableIsAJSONObject() throws {
        let table = NameRoute.table([("fcm.googleapis.com:443", "127.0.0.1:41001"), ("gcm.googleapis.com:5235", "[::1]:41003")])
        let parsed = try JSONParser.parse(Array(table.utf8))
        #expect(parsed["fcm.googleapis.com:443"]?.stringValue == "127.0.0.1:41001")
        #expect(parsed["gcm.googleapis.com:5235"]?.stringValue == "[::1]:41003")
    }

    @Test func theUsersPythonPathIsKeptAfterOurs() {
        #expect(NameRoute.pythonPath(directory: "/w/python", preset: "/mine:/theirs") == "/w/python:/mine:/theirs")
        #expect(NameRoute.pythonPath(directory: "/w/python", preset: nil) == "/w/python")
        #expect(NameRoute.pythonPath(directory: "/w/python", preset: "") == "/w/python")
    }

    /// The module under a real interpreter: routed lookups (port as int, str, service name; any
    /// case, a trailing dot), others untouched, an IPv6-only lookup refused rather than sent to
    /// Google, a bad table said once, and the user's sitecustomize run after ours.
    @Test(.enabled(if: T.tool("python3") != nil)) func aRealPythonResolvesThroughTheTable() throws {
        let directory = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/ours", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: directory + "/user", withIntermediateDirectories: false)
        try NameRoute.write(to: directory + "/ours")
        try "import builtins\nbuiltins.USER_SITECUSTOMIZE = __file__\n".write(
            toFile: directory + "/user/sitecustomize.py", atomically: false, encoding: .utf8)
        let script = #"""
            import builtins, socket
            g = lambda *a: [(i[0].name, i[4][:2]) for i in socket.getaddrinfo(*a)]
            S = socket.SOCK_STREAM
            print("INT=%s" % g("fcm.googleapis.com", 443, socket.AF_INET, S))
            print("SERVICE=%s" % g("FCM.GoogleAPIs.com.", "https", socket.AF_INET, S))
            print("BYTES=%s" % g(b"fcm.googleapis.com", b"443", 0, S))
            print("XMPP=%s" % g("gcm.googleapis.com", "5235", socket.AF_INET, S))
            print("OTHERPORT=%s" % g("localhost", 443, socket.AF_INET, S))
            try:
                socket.getaddrinfo("fcm.googleapis.com", 443, socket.AF_INET6, S)
                print("V6=answered")
            except socket.gaierror:
                print("V6=refused")
            print("USER=%s" % getattr(builtins, "USER_SITECUSTOMIZE", "none"))
            """#
        let table = NameRoute.table(NameRoute.routes(info: info()))
        let python = try #require(T.tool("python3"))
        let environment = T.cleanEnvironment(["PYTHONPATH": directory + "/ours:" + directory + "/user", NameRoute.variable: table])
        let run = try T.run([python, "-c", script], environment: environment)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let out = T.lines(run.stdout)
        #expect(out["INT"] == "[('AF_INET', ('127.0.0.1', 41001))]")
        #expect(out["SERVICE"] == out["INT"] && out["BYTES"] == out["INT"])
        #expect(out["XMPP"] == "[('AF_INET', ('127.0.0.1', 41003))]")
        #expect(out["OTHERPORT"] == "[('AF_INET', ('127.0.0.1', 443))]")
        #expect(out["V6"] == "refused")
        #expect(out["USER"] == directory + "/user/sitecustomize.py")

        var broken = environment
        broken[NameRoute.variable] = "{not json"
        let bad = try T.run([python, "-c", "import socket; print('RAN=yes')"], environment: broken)
        #expect(bad.status == 0 && T.lines(bad.stdout)["RAN"] == "yes")
        #expect(bad.stderr.split(separator: "\n").count == 1 && bad.stderr.contains("FCM_EMU_NAME_ROUTES"))
    }

    @Test(.enabled(if: ExecEndToEndTests.binaryBuilt)) func execPutsItsDirectoryFirstAndKeepsTheUsersPythonPath() throws {
        let state = try T.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let script = #"echo "PYTHONPATH=$PYTHONPATH"; echo "ROUTES=$FCM_EMU_NAME_ROUTES"; echo "FILE=$(ls "${PYTHONPATH%%:*}")""#
        let run = try T.run(
            [T.binary, "exec", "--set", "stateDir=\(state)", "--", "/bin/sh", "-c", script],
            environment: T.cleanEnvironment(["PYTHONPATH": "/mine:/theirs"]))
        #expect(run.status == 0, "\(run.stderr)")
        let out = T.lines(run.stdout)
        let path = out["PYTHONPATH"] ?? ""
        #expect(path.hasSuffix("/python:/mine:/theirs") && path.contains("/fcm-emu-exec-"))
        #expect(out["FILE"] == "sitecustomize.py")
        #expect(out["ROUTES"]?.contains(#""fcm.googleapis.com:443":"127.0.0.1:"#) == true)

        let off = try T.run(
            [T.binary, "exec", "--set", "stateDir=\(state)", "--no-name-route", "--", "/bin/sh", "-c", script],
            environment: T.cleanEnvironment(["PYTHONPATH": "/mine:/theirs"]))
        #expect(off.status == 0, "\(off.stderr)")
        #expect(T.lines(off.stdout)["PYTHONPATH"] == "/mine:/theirs" && T.lines(off.stdout)["ROUTES"] == "")
    }
}
