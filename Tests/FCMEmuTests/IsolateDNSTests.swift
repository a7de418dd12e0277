// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import fcm_emu

/// `exec --isolate`'s resolver (docs/unmodified-apps.md, "Fail closed: exec --isolate"): the
/// question of a standard query read, its answer built, anything else dropped; and the report.
@Suite("exec --isolate: the resolver and the report")
struct IsolateDNSTests {
    /// A query as glibc's resolver sends one: id, RD set, one question.
    static func query(_ name: String, type: UInt16 = 1, klass: UInt16 = 1, id: UInt16 = 0x1234) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xff), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += label.utf8
        }
        return bytes + [0, UInt8(type >> 8), UInt8(type & 0xff), UInt8(klass >> 8), UInt8(klass & 0xff)]
    }

    let names = IsolatedNames(hostname: "build-box")

    @Test func googleNamesAnswerLoopbackForA() throws {
        let question = try #require(DNSQuestion(Self.query("FCM.googleapis.com")))
        #expect(question.name == "fcm.googleapis.com")
        #expect(question.type == DNSQuestion.typeA)
        let (answer, report) = names.answer(question)
        #expect(answer == .loopback)
        #expect(!report)
        let reply = question.reply(answer)
        // Same id; QR, AA and RD; NOERROR; one question, one answer; the last four bytes 127.0.0.1.
        #expect(Array(reply.prefix(4)) == [0x12, 0x34, 0x85, 0x00])
        #expect(Array(reply[4..<8]) == [0, 1, 0, 1])
        #expect(Array(reply.suffix(4)) == [127, 0, 0, 1])
        #expect(reply.count == Self.query("fcm.googleapis.com").count + 16)
    }

    @Test func googleNamesHaveNoAAAAData() throws {
        let question = try #require(DNSQuestion(Self.query("oauth2.googleapis.com", type: 28)))
        let reply = question.reply(names.answer(question).0)
        #expect(reply[3] & 0x0f == 0)
        #expect(Array(reply[6..<8]) == [0, 0])
    }

    @Test func otherNamesAreNXDOMAINAndReported() throws {
        let question = try #require(DNSQuestion(Self.query("api.example.com")))
        let (answer, report) = names.answer(question)
        #expect(answer == .noSuchName)
        #expect(report)
        let reply = question.reply(answer)
        #expect(reply[3] & 0x0f == 3)
        #expect(Array(reply[6..<8]) == [0, 0])
        // Reverse lookups and the machine's own name are not what the report is for.
        #expect(try !names.answer(#require(DNSQuestion(Self.query("1.0.0.127.in-addr.arpa", type: 12)))).report)
        #expect(try names.answer(#require(DNSQuestion(Self.query("build-box")))).0 == .loopback)
        #expect(try names.answer(#require(DNSQuestion(Self.query("fcm.googleapis.com", klass: 3)))).0 == .refused)
    }

    @Test func malformedPacketsAreDropped() {
        let good = Self.query("fcm.googleapis.com")
        #expect(DNSQuestion([UInt8]()) == nil)
        #expect(DNSQuestion(Array(good.prefix(11))) == nil)
        // Every truncation of a good query.
        for length in 0..<good.count { #expect(DNSQuestion(Array(good.prefix(length))) == nil) }
        var response = good
        response[2] |= 0x80
        #expect(DNSQuestion(response) == nil)
        var twoQuestions = good
        twoQuestions[5] = 2
        #expect(DNSQuestion(twoQuestions) == nil)
        var pointer = good
        pointer[12] = 0xC0
        #expect(DNSQuestion(pointer) == nil)
        // Over 512 bytes, whatever it holds.
        #expect(DNSQuestion(good + [UInt8](repeating: 0, count: 600)) == nil)
        // A name over 255 octets.
        let long = Array(repeating: String(repeating: "a", count: 63), count: 5).joined(separator: ".")
        #expect(DNSQuestion(Self.query(long)) == nil)
        // Arbitrary bytes never crash the parser.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var packet = good
            packet[Int(seed >> 33) % packet.count] = UInt8(truncatingIfNeeded: seed >> 17)
            if let question = DNSQuestion(packet) { _ = question.reply(names.answer(question).0) }
        }
    }

    @Test func theLogIsBounded() {
        let log = LookupLog()
        #expect(log.record("api.example.com"))
        #expect(!log.record("api.example.com"))
        for index in 0..<(LookupLog.limit + 10) { log.record("host\(index).example") }
        #expect(log.entries.count == LookupLog.limit)
        #expect(log.entries.first == LookupLog.Entry(name: "api.example.com", count: 2))
        #expect(log.unlisted == 11)
        #expect(LookupLog.printable("a\u{1b}[2Jb") == "a?[2Jb")
    }

    @Test func theReportNamesEachHostWithWhatWouldHaveWorked() throws {
        let report = IsolationReport(
            lookups: [LookupLog.Entry(name: "api.example.com", count: 3)], unlisted: 0,
            proxyRefusals: [
                "intercepted fcm.googleapis.com:443", "refused example.com:443", "refused example.com:443",
                "isolated: lookup api.example.com refused", "plain HTTP refused storage.googleapis.com:80 (not resolved)",
            ])
        let text = try #require(report.text())
        #expect(
            text.contains(
                "the command looked up api.example.com (3×): under --isolate only the emulator is reachable; run without --isolate"))
        #expect(text.contains("asked the proxy (HTTPS_PROXY) for example.com:443 (2×)"))
        #expect(text.contains("NO_PROXY=example.com"))
        #expect(text.contains("fcm-emu does not stand in for storage.googleapis.com"))
        #expect(!text.contains("fcm.googleapis.com:443 ("))
        #expect(IsolationReport(lookups: [], unlisted: 0, proxyRefusals: ["intercepted fcm.googleapis.com:443"]).text() == nil)
    }

    @Test func theHostsFileNamesGoogleOnLoopback() {
        let hosts = names.hostsFile()
        for name in ["fcm.googleapis.com", "oauth2.googleapis.com", "mtalk.google.com", "fcm-xmpp.googleapis.com", "build-box"] {
            #expect(
                hosts.split(separator: "\n").contains { $0.hasPrefix("127.0.0.1 ") && $0.split(separator: " ").contains(Substring(name)) })
        }
    }
}
