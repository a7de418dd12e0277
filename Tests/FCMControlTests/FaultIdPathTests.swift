// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// The dashboard removed rule `.` with `DELETE /emulator/v1/faults/` (a browser
/// drops the single-dot segment), which the router read as the collection's DELETE: every rule went.
@Suite("Fault rule ids and paths")
struct FaultIdPathTests {
    private func withRules() throws -> InProcess {
        let api = InProcess()
        _ = try api.json("POST", "/emulator/v1/faults", #"{"id":"outage","action":{"status":503}}"#, status: 201)
        _ = try api.json("POST", "/emulator/v1/faults", #"{"id":"slow","action":{"latency":"1s"}}"#, status: 201)
        return api
    }

    @Test(arguments: ["/emulator/v1/faults/", "/emulator/v1/faults//", "/emulator/v1/faults/%2E", "/emulator/v1/faults/.",
        "/emulator/v1/faults/..", "/emulator/v1/faults/%2e%2e", "//emulator/v1/faults", "/emulator/v1//faults"])
    func anEmptyOrDotSegmentIsNeverTheCollection(path: String) throws {
        let api = try withRules()
        let answer = api.call("DELETE", path)
        #expect(answer.status == 404 || answer.status == 400, "\(path): \(answer.status) \(answer.bodyText)")
        #expect(api.emulator.faultRules().map(\.id) == ["outage", "slow"], "\(path)")
    }

    @Test func theCollectionAndOneRuleAreStillRemovedByTheirOwnPaths() throws {
        let api = try withRules()
        _ = try api.json("DELETE", "/emulator/v1/faults/outage")
        #expect(api.emulator.faultRules().map(\.id) == ["slow"])
        _ = try api.json("DELETE", "/emulator/v1/faults")
        #expect(api.emulator.faultRules().isEmpty)
    }

    @Test(arguments: [#"{"id":".","action":{"status":503}}"#, #"{"id":"..","action":{"status":503}}"#, #"{"id":"","action":{"status":503}}"#,
        #"{"id":"a/b","action":{"status":503}}"#])
    func idsThatCannotBeAPathSegmentAreRefused(body: String) throws {
        let api = InProcess()
        let answer = api.call("POST", "/emulator/v1/faults", body)
        #expect(answer.status == 400, "\(body): \(answer.bodyText)")
        let put = api.call("PUT", "/emulator/v1/faults", #"{"faults":[\#(body)]}"#)
        #expect(put.status == 400)
        #expect(api.emulator.faultRules().isEmpty)
    }

    /// Safe methods still read a trailing slash as none: `/ui/` is the dashboard.
    @Test func aTrailingSlashStillServesGets() throws {
        let api = InProcess()
        #expect(api.call("GET", "/ui/").status == 200)
        #expect(api.call("GET", "/emulator/v1/faults/").status == 200)
        #expect(api.call("POST", "/emulator/v1/reset/").status == 404)
    }
}
