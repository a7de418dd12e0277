// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTesting
import FCMTransport
import Testing

@Suite("POST /batch (multipart/mixed)")
struct BatchTests {
    private func batch(
        _ api: InProcess, path: String = "/batch", contentType: String, body: String,
        headers: [(String, String)] = [("Authorization", "Bearer owner")]
    ) -> HTTPResponse {
        api.responder.respond(HTTPRequest(method: "POST", target: path, headers: [("Content-Type", contentType)] + headers, body: body))
    }

    /// The response's parts: (Content-ID, inner status line, inner body).
    private func parts(_ response: HTTPResponse) throws -> [(String, String, String)] {
        let contentType = try #require(response.header("Content-Type"))
        #expect(!contentType.contains("\""))
        let boundary = String(try #require(contentType.split(separator: "=").last))
        let text = response.bodyText
        #expect(text.hasSuffix("--\(boundary)--\r\n"))
        return text.components(separatedBy: "--\(boundary)").dropFirst().dropLast().map { chunk in
            let sections = chunk.components(separatedBy: "\r\n\r\n")
            let id = sections[0].components(separatedBy: "Content-ID: ").last ?? ""
            let status = sections[1].components(separatedBy: "\r\n").first ?? ""
            return (id, status, sections.dropFirst(2).joined(separator: "\r\n\r\n"))
        }
    }

    @Test func nodeStyleCRLFWithAbsoluteURLs() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        func part(_ id: Int, _ json: String) -> String {
            "--__END_OF_PART__\r\nContent-Length: 163\r\nContent-Type: application/http\r\ncontent-id:"
                + " \(id)\r\ncontent-transfer-encoding: binary\r\n\r\n"
                + "POST https://fcm.googleapis.com/v1/projects/demo-fcm-emu/messages:send"
                + " HTTP/1.1\r\nContent-Length: 38\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n\(json)\r\n"
        }
        let body =
            part(1, #"{"message":{"token":"\#(d.token)","data":{"n":"1"}}}"#) + part(2, #"{"message":{"token":"bad"}}"#)
            + "--__END_OF_PART__--\r\n"
        let response = batch(api, contentType: "multipart/mixed; boundary=__END_OF_PART__", body: body)
        #expect(response.status == 200)
        let answers = try parts(response)
        #expect(answers.map(\.0) == ["response-1", "response-2"])
        #expect(answers[0].1 == "HTTP/1.1 200 OK")
        #expect(answers[0].2.contains("\"name\": \"projects/demo-fcm-emu/messages/0:"))
        #expect(answers[1].1 == "HTTP/1.1 400 Bad Request")
        #expect(answers[1].2.contains("not a valid FCM registration token"))
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.count == 1)
    }

    @Test func pythonStyleQuotedBoundaryBareLFAndBracketedIds() throws {
        let api = InProcess()
        let body = """
            --===============7330845974216740156==
            Content-Type: application/http
            MIME-Version: 1.0
            Content-Transfer-Encoding: binary
            Content-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22 + 1>

            POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1
            Content-Type: application/json
            MIME-Version: 1.0
            host: fcm.googleapis.com

            {"message": {"topic": "news"}}
            --===============7330845974216740156==--

            """
        let response = batch(api, contentType: #"multipart/mixed; boundary="===============7330845974216740156==""#, body: body)
        let answers = try parts(response)
        #expect(answers.map(\.0) == ["<response-b29c5de2-0db4-490b-b421-6a51b598bd22 + 1>"])
        #expect(answers[0].1 == "HTTP/1.1 200 OK")
    }

    @Test func goStyleOriginFormWithPartAuthorization() throws {
        let api = InProcess()
        let body =
            "--__END_OF_PART__\r\nContent-Id: 1\r\nContent-Length: 999\r\nContent-Transfer-Encoding:"
            + " binary\r\nContent-Type: application/http\r\n\r\n"
            + "POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: fcm.googleapis.com\r\nAuthorization:"
            + " Bearer part\r\nX-Goog-Api-Format-Version: 2\r\n\r\n{\"message\":{\"topic\":\"x\"}}\r\n--__END_OF_PART__--\r\n"
        let response = batch(api, contentType: "multipart/mixed; boundary=__END_OF_PART__", body: body, headers: [])
        #expect(try parts(response).first?.1 == "HTTP/1.1 200 OK")
    }

    /// Go's `option.WithEndpoint("http://host:port/v1")` makes its batch URL the endpoint itself
    /// (firebase-admin-go `messaging.go`), so SendAll posts here; parts as Go's multipart writer
    /// lays them out (headers sorted, origin-form request line with a Host header).
    @Test func goWithEndpointPostsTheBatchToV1Itself() throws {
        let api = InProcess()
        let d = try api.emulator.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id)
        let json = #"{"message":{"token":"\#(d.token)"},"validate_only":false}"#
        let inner =
            "POST /v1/projects/demo-fcm-emu/messages:send HTTP/1.1\r\nHost: 127.0.0.1:9092\r\n"
            + "Content-Length: \(json.utf8.count)\r\n"
            + "Content-Type: application/json; charset=UTF-8\r\nX-Goog-Api-Format-Version: 2\r\n\r\n\(json)"
        let body =
            "--__END_OF_PART__\r\nContent-Id: 1\r\nContent-Length: \(inner.utf8.count)\r\nContent-Transfer-Encoding: binary\r\n"
            + "Content-Type: application/http\r\n\r\n\(inner)\r\n--__END_OF_PART__--\r\n"
        let response = batch(api, path: "/v1", contentType: "multipart/mixed; boundary=__END_OF_PART__", body: body)
        #expect(response.status == 200)
        let answers = try parts(response)
        #expect(answers.map(\.0) == ["response-1"])
        #expect(answers.first?.1 == "HTTP/1.1 200 OK")
        #expect(try api.emulator.inbox(String(d.id), projectId: DemoProject.id).1.count == 1)
    }

    @Test func unauthenticatedPartsFailAloneAndTheOuterStatusIs200() throws {
        let api = InProcess()
        let body =
            "--b\r\nContent-Type: application/http\r\n\r\nPOST /v1/projects/demo-fcm-emu/messages:send"
            + " HTTP/1.1\r\n\r\n{\"message\":{\"topic\":\"x\"}}\r\n--b--\r\n"
        let response = batch(api, contentType: "multipart/mixed; boundary=b", body: body, headers: [])
        #expect(response.status == 200)
        let answers = try parts(response)
        #expect(answers.map(\.0) == ["response-"])
        #expect(answers.first?.1 == "HTTP/1.1 401 Unauthorized")
    }

    @Test(arguments: ["application/json", "multipart/mixed", "multipart/mixed; boundary=zz"])
    func brokenBatchesAre400(contentType: String) throws {
        let api = InProcess()
        let response = batch(api, contentType: contentType, body: "--b\r\nnot a part\r\n--b--\r\n")
        #expect(response.status == 400)
        #expect(try JSONParser.parse(response.body).string("error.status") == "INVALID_ARGUMENT")
    }
}
