// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
import FCMJSON
import FCMTesting
import Testing

/// The proto reader's field table, the paths its errors name, and the send's answer written
/// without a document: each against what the plain way gives.
@Suite("v1 reader: field names, error paths, the send's answer")
struct V1ReaderTests {
    /// Every message of the schema, reached from the send request.
    private static func messages() -> [ProtoMessage] {
        var found: [ProtoMessage] = []
        func visit(_ type: ProtoType) {
            switch type {
            case .message(let message):
                guard !found.contains(where: { $0 === message }) else { return }
                found.append(message)
                for field in message.fields { visit(field.type) }
            case .repeated(let element): visit(element)
            default: break
            }
        }
        visit(.message(FCMSchema.sendRequest))
        return found
    }

    @Test func everyFieldIsFoundByBothNamesAndNothingElseIs() {
        let messages = Self.messages()
        #expect(messages.count > 10)
        for message in messages {
            let names = Set(message.fields.map(\.name) + message.fields.map { ProtoNames.camel($0.name) })
            for field in message.fields {
                #expect(message.field(jsonName: field.name)?.name == field.name, "\(message.typeName).\(field.name)")
                #expect(message.field(jsonName: ProtoNames.camel(field.name))?.name == field.name)
            }
            // Near misses: a byte more, less or changed, another case, every other message's names.
            var others = messages.flatMap { $0.fields.map(\.name) }.filter { !names.contains($0) }
            for name in names {
                others += [name + "_", String(name.dropLast()), name.uppercased(), "_" + name, name + "\u{301}"]
            }
            others += ["", "\u{0}", String(repeating: "x", count: 300)]
            for other in others where !names.contains(other) {
                #expect(message.field(jsonName: other) == nil, "\(message.typeName) found \(other)")
            }
        }
    }

    @Test func anElementOfARepeatedFieldIsNamedByItsIndex() throws {
        let body = #"{"message":{"topic":"x","android":{"notification":{"body_loc_key":"k","bodyLocArgs":["a",7]}}}}"#
        do throws(V1Error) {
            _ = try V1MessageDecoder.decode(Array(body.utf8))
            Issue.record("decoded")
        } catch {
            let text = String(decoding: error.response.body, as: UTF8.self)
            #expect(text.contains(#""Invalid value at 'message.android.notification.body_loc_args[1]' (TYPE_STRING), 7""#), "\(text)")
        }
    }

    @Test func aSendsAnswerIsTheDocumentsBytes() {
        let projects = ["demo-fcm-emu", "123456789", "a\"b\\c", "tab\there", "\u{1}\u{1f}", "é\u{301}", "ünïcödé-項目", ""]
        for project in projects {
            for id in ["0:1700000000000000%abcdef0123456789", "fake_message_id"] {
                let plain = V1Response.json(.object([("name", .string("projects/\(project)/messages/\(id)"))]))
                let direct = V1Response.sent(project: project, messageId: id)
                #expect(direct.body == plain.body, "\(project)")
                #expect(direct.headers.map { "\($0.0): \($0.1)" } == plain.headers.map { "\($0.0): \($0.1)" })
                #expect(direct.status == plain.status)
            }
        }
    }
}
