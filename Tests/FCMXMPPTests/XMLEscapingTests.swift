// SPDX-License-Identifier: Apache-2.0

@testable import FCMXMPP
import Testing

@Suite("XML text: escaping, names")
struct XMLEscapingTests {
    /// The rule as XML states it, scalar by scalar: what the byte-wise escape must equal.
    private static func byScalar(_ s: String, quotes: Bool) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    @Test func everySpecialIsEscapedWhereverItFalls() {
        let pieces = ["a", "é", "✓", "𝄞", "\u{65B}", "&", "<", ">", "\"", "'", "<\u{65B}", "&amp;"]
        for first in pieces {
            for second in pieces {
                for third in pieces {
                    let text = first + second + "{\"k\":1}" + third
                    for quotes in [false, true] {
                        #expect(XMLEscaping.escape(text, quotes: quotes) == Self.byScalar(text, quotes: quotes), "\(text)")
                    }
                }
            }
        }
    }

    @Test func plainTextIsReturnedAsItIs() {
        let json = #"{"message_type":"ack","from":"token:APA91b","message_id":"m-1"}"#
        #expect(XMLEscaping.escape(json, quotes: false) == json)
        #expect(XMLEscaping.escape(json, quotes: true) == Self.byScalar(json, quotes: true))
        #expect(XMLEscaping.escape("", quotes: true).isEmpty)
        #expect(XMLEscaping.unescape(ArraySlice(XMLEscaping.escape("a<b>&'\"c✓", quotes: true).utf8)) == "a<b>&'\"c✓")
    }

    @Test func aLocalNameIsThePartAfterTheLastColon() {
        for name in ["message", "data:gcm", "a:b:c", "gcm:", "a::", ":", "::", "", ":x", "é:ü", "x:", "p:q:"] {
            #expect(XMPPElement(name: name).localName == (name.split(separator: ":").last.map(String.init) ?? name), "\(name)")
        }
    }

    @Test func aNameHoldsNothingThatDelimitsMarkup() throws {
        for name in ["message", "data:gcm", "x-y.z_1", "é✓"] {
            #expect(try RestrictedXML.validName(ArraySlice(name.utf8)) == name)
        }
        let forbidden = Array(0..<0x20) + Array("<>&\"'=/".utf8)
        for byte in 0...255 {
            let bytes = ArraySlice(Array("ab".utf8) + [UInt8(byte)] + Array("c".utf8))
            if forbidden.contains(UInt8(byte)) || byte >= 0x80 {
                #expect(throws: XMPPStreamError.self) { try RestrictedXML.validName(bytes) }
            } else {
                #expect(try RestrictedXML.validName(bytes) == String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(throws: XMPPStreamError.self) { try RestrictedXML.validName([]) }
    }

    @Test func anElementIsWrittenWithItsAttributesTextAndChildren() {
        let element = XMPPElement(
            name: "message", attributes: [("id", "a\"b<'c'>&"), ("to", "x@y")],
            children: [
                XMPPElement(name: "gcm", attributes: [("xmlns", "google:mobile:data")], text: #"{"k":"<v>&é"}"#),
                XMPPElement(name: "empty"),
            ],
            text: "t")
        let expected =
            #"<message id="a&quot;b&lt;&apos;c&apos;&gt;&amp;" to="x@y">t"#
            + #"<gcm xmlns="google:mobile:data">{"k":"&lt;v&gt;&amp;é"}</gcm><empty/></message>"#
        #expect(element.xml == expected)
    }

    @Test func aTagRefusesADuplicateAttributeWhereverItIsAndPastTheLimit() throws {
        func tag(_ keys: [String]) throws(XMPPStreamError) -> RestrictedXML.Tag {
            let text = "<m " + keys.map { "\($0)='v'" }.joined(separator: " ") + ">"
            let bytes = Array(text.utf8)
            return try RestrictedXML.tag(bytes, 0, bytes.count - 1)
        }
        for count in [1, 2, 7, 8, 9, 20, RestrictedXML.maxAttributes] {
            let keys = (0..<count).map { "a\($0)" }
            #expect(try tag(keys).attributes.map(\.0) == keys)
            for repeated in [0, count / 2, count - 1] {
                #expect(throws: XMPPStreamError.self) { try tag(keys + [keys[repeated]]) }
            }
        }
        #expect(throws: XMPPStreamError.self) { try tag((0...RestrictedXML.maxAttributes).map { "a\($0)" }) }
    }
}
