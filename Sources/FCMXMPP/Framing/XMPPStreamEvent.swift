// SPDX-License-Identifier: Apache-2.0

/// What the framer finds in a client's byte stream: the four events that Prosody
/// (`util/xmppstream.lua`), ejabberd's fast_xml (`xml_stream`) and XMPPFramework
/// (`Core/XMPPParser.h`) all converge on.
public enum XMPPStreamEvent: Sendable, Equatable {
    case streamOpened(attributes: [String: String])
    case stanza(XMPPElement)
    case streamClosed
}

/// A stream-level error (RFC 6120 §4.9.3): the peer broke the protocol; the server answers with
/// `<stream:error>` and closes.
public struct XMPPStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The defined condition element name, e.g. `not-well-formed`.
    public let condition: String
    public let text: String

    public var description: String { "\(condition): \(text)" }

    static func notWellFormed(_ text: String) -> XMPPStreamError { XMPPStreamError(condition: "not-well-formed", text: text) }
    static func restrictedXML(_ text: String) -> XMPPStreamError { XMPPStreamError(condition: "restricted-xml", text: text) }
    static func policyViolation(_ text: String) -> XMPPStreamError { XMPPStreamError(condition: "policy-violation", text: text) }
}
