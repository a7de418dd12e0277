// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

/// `message.fid`, the target the Admin SDKs now prefer to `token` (firebase-admin-node's
/// `FidMessage`, firebase-admin-python 7.7's `Message.fid`): wherever a token goes in a v1 send.
/// An unknown FID is 404 UNREGISTERED whatever its shape, under `validate_only` too, which
/// firebase-admin-node reports as `messaging/installation-id-not-registered` because its request
/// named a `fid` (`src/messaging/messaging-errors-internal.ts`; docs/http-v1.md, "Installation IDs").
@Suite("v1 sends to a Firebase installation ID")
struct V1FidTests {
    private static let bearer = [("Authorization", "Bearer any")]
    private static let path = "/v1/projects/\(DemoProject.id)/messages:send"

    private func send(_ api: InProcess, _ message: String, validateOnly: Bool = false) -> HTTPResponse {
        api.call("POST", Self.path, #"{"validate_only":\#(validateOnly),"message":\#(message)}"#, headers: Self.bearer)
    }

    private func expectUnregistered(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == 404, sourceLocation: sourceLocation)
        let error = try JSONParser.parse(response.body)["error"]
        #expect(error?["status"] == .string("NOT_FOUND"), sourceLocation: sourceLocation)
        #expect(error?["message"] == .string("Requested entity was not found."), sourceLocation: sourceLocation)
        #expect(error?["details"]?.arrayValue?.first?["errorCode"] == .string("UNREGISTERED"), sourceLocation: sourceLocation)
    }

    @Test func aKnownFidIsDeliveredAndValidatedWithoutDelivery() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let validated = send(api, #"{"fid":"\#(d.fid)","data":{"n":"0"}}"#, validateOnly: true)
        #expect(validated.status == 200)
        #expect(validated.bodyText.contains("projects/\(DemoProject.id)/messages/fake_message_id"))
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.isEmpty)
        #expect(send(api, #"{"fid":"\#(d.fid)","data":{"n":"1"}}"#).status == 200)
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.count == 1)
        // The control API names the device by its FID as by its token.
        let inbox = try api.json("GET", "/emulator/v1/projects/\(DemoProject.id)/devices/\(d.fid)/inbox")
        #expect(inbox["deliveries"]?.arrayValue?.count == 1)
    }

    /// Google's own integration test sends `mock-fid` and `not-a-fid` in a dry run and expects
    /// installation-id-not-registered: no shape check, unlike a token's INVALID_ARGUMENT.
    @Test(arguments: [false, true]) func anUnknownFidIsUnregisteredWhateverItsShape(validateOnly: Bool) throws {
        let api = InProcess()
        for fid in ["mock-fid", "not-a-fid", "cAbCdEfGhIjKlMnOpQrStU"] {
            try expectUnregistered(send(api, #"{"fid":"\#(fid)"}"#, validateOnly: validateOnly))
        }
        let token = send(api, #"{"token":"not-a-token"}"#, validateOnly: validateOnly)
        #expect(token.status == 400)
    }

    @Test func anUninstalledOrForeignFidIsUnregistered() throws {
        let api = InProcess()
        try api.emulator.createProject(id: "demo-other")
        let gone = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let foreign = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: "demo-other")
        #expect(api.call("PATCH", "/emulator/v1/projects/\(DemoProject.id)/devices/\(gone.id)", #"{"state":"uninstalled"}"#).status == 200)
        // The first delivery attempt finds the app gone (docs/simulation.md, "Uninstall"); then the FID is unregistered.
        #expect(send(api, #"{"fid":"\#(gone.fid)"}"#).status == 200)
        try expectUnregistered(send(api, #"{"fid":"\#(gone.fid)"}"#))
        try expectUnregistered(send(api, #"{"fid":"\#(gone.fid)"}"#, validateOnly: true))
        try expectUnregistered(send(api, #"{"fid":"\#(foreign.fid)"}"#))
    }

    @Test func fidAndTokenTogetherAreRefusedAsOneOf() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let both = send(api, #"{"fid":"\#(d.fid)","token":"\#(d.token)"}"#)
        #expect(both.status == 400)
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.isEmpty)
    }

    /// A batch's parts are direct sends: a FID there is answered as above, part by part.
    @Test func aBatchAnswersEachFid() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        func part(_ id: Int, _ json: String) -> String {
            "--b\r\nContent-Type: application/http\r\nContent-ID: \(id)\r\n\r\n"
                + "POST \(Self.path) HTTP/1.1\r\nContent-Type: application/json\r\n\r\n\(json)\r\n"
        }
        let body = part(1, #"{"message":{"fid":"\#(d.fid)"}}"#) + part(2, #"{"message":{"fid":"not-a-fid"}}"#) + "--b--\r\n"
        let response = api.responder.respond(
            HTTPRequest(
                method: "POST", target: "/batch", headers: [("Content-Type", "multipart/mixed; boundary=b")] + Self.bearer, body: body))
        #expect(response.status == 200)
        #expect(response.bodyText.contains("HTTP/1.1 200 OK"))
        #expect(response.bodyText.contains("HTTP/1.1 404 Not Found"))
        #expect(response.bodyText.contains("\"errorCode\": \"UNREGISTERED\""))
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.count == 1)
    }
}
