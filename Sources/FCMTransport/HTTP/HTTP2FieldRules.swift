// SPDX-License-Identifier: Apache-2.0

import NIOHPACK
import NIOHTTP2

/// Whether a request's header block, or its trailers, is well formed (RFC 9113 §8.2, §8.3), judged
/// as NIO's own validation judges it (`HPACKHeaders+Validation.swift` in swift-nio-http2), rule for
/// rule and naming the same first fault, so `HTTP2StreamCodec` answers a malformed request as NIO
/// did: RST_STREAM `PROTOCOL_ERROR`. NIO's validation is off on the server's connections
/// (`HTTPServer`): it has one switch for both directions, and checking the emulator's own answers
/// cost every send about 11,000 instructions (docs/benchmarks.md).
///
/// - every name is a token of lowercase characters, not empty (after a pseudo-field's colon);
/// - pseudo-fields come before the others, each known and at most once; `:protocol` is refused,
///   since the server does not offer extended CONNECT (RFC 8441);
/// - a request has `:method`, `:scheme` and `:path` (not empty) and may have `:authority`; a
///   CONNECT has `:method` and `:authority` only; trailers have no pseudo-field;
/// - no connection-specific field, `te` only as `trailers` (not checked in trailers);
/// - no NUL, CR or LF in a value; no control byte, space or DEL in a pseudo-field's.
enum HTTP2FieldRules {
    /// The first fault of a request's header block, as NIO names it; nil when it is well formed.
    static func requestFault(_ block: HPACKHeaders) -> (any Error)? {
        fault(block, trailers: false)
    }

    /// The first fault of a request's trailers, as NIO names it; nil when they are well formed.
    static func trailersFault(_ block: HPACKHeaders) -> (any Error)? {
        fault(block, trailers: true)
    }

    private static func fault(_ block: HPACKHeaders, trailers: Bool) -> (any Error)? {
        var inRegularFields = false
        var seen = Pseudo()
        var isConnect = false
        for (name, value, _) in block {
            let pseudo = name.utf8.first == UInt8(ascii: ":")
            let start = pseudo ? 1 : 0
            guard name.utf8.count > start, every(name, from: start, HTTPBytes.isLowercaseToken) else {
                return NIOHTTP2Errors.invalidHTTP2HeaderFieldName(name)
            }
            if pseudo {
                guard !inRegularFields else { return NIOHTTP2Errors.pseudoHeaderAfterRegularHeader(name) }
                guard every(value, { $0 > 0x20 && $0 != 0x7F }) else {
                    return NIOHTTP2Errors.invalidPseudoHeaderValue(name: name, value: value)
                }
                guard let field = Pseudo(name) else { return NIOHTTP2Errors.unknownPseudoHeader(name) }
                guard field != .extConnectProtocol else { return NIOHTTP2Errors.unsupportedPseudoHeader(name) }
                guard !seen.contains(field) else { return NIOHTTP2Errors.duplicatePseudoHeader(name) }
                seen.formUnion(field)
                if trailers { continue }
                if field == .method { isConnect = value == "CONNECT" }
                if field == .path, value.utf8.isEmpty { return NIOHTTP2Errors.emptyPathHeader() }
            } else {
                inRegularFields = true
                if isConnectionSpecific(name) { return NIOHTTP2Errors.forbiddenHeaderField(name: name, value: value) }
                guard every(value, { $0 != 0x00 && $0 != 0x0A && $0 != 0x0D }) else {
                    return NIOHTTP2Errors.invalidHTTP2HeaderFieldValue(name: name, value: value)
                }
                if !trailers, name.utf8.count == 2, name == "te", value != "trailers" {
                    return NIOHTTP2Errors.forbiddenHeaderField(name: name, value: value)
                }
            }
        }
        let (allowed, mandatory): (Pseudo, Pseudo) =
            trailers
            ? ([], [])
            : isConnect
                ? ([.method, .authority], [.method, .authority]) : ([.path, .method, .scheme, .authority], [.path, .method, .scheme])
        guard allowed.isSuperset(of: seen), mandatory.isSubset(of: seen) else { return NIOHTTP2Errors.invalidPseudoHeaders(block) }
        return nil
    }

    /// The fields HTTP/2 forbids (RFC 9113 §8.2.2), in any case (a request's names are lowercase
    /// by the time they are asked; an answer's are lowercased after), by length first: most names
    /// are none of them. A request with one is malformed; `HTTP2StreamCodec` drops them from an
    /// answer, as NIO's codec did.
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name.utf8.count {
        case 7: name.equalsIgnoringASCIICase("upgrade")
        case 10: name.equalsIgnoringASCIICase("connection") || name.equalsIgnoringASCIICase("keep-alive")
        case 16: name.equalsIgnoringASCIICase("proxy-connection")
        case 17: name.equalsIgnoringASCIICase("transfer-encoding")
        default: false
        }
    }

    /// Whether every byte of `text` from `start` passes `test`, read from its contiguous bytes when
    /// it has them (a decoded field always does).
    @inline(__always)
    private static func every(_ text: String, from start: Int = 0, _ test: (UInt8) -> Bool) -> Bool {
        let contiguous = text.utf8.withContiguousStorageIfAvailable { bytes in
            var index = start
            while index < bytes.count {
                guard test(bytes[index]) else { return false }
                index += 1
            }
            return true
        }
        return contiguous ?? text.utf8.dropFirst(start).allSatisfy(test)
    }

    /// The pseudo-fields NIO knows.
    private struct Pseudo: OptionSet {
        let rawValue: UInt8
        static let path = Pseudo(rawValue: 1 << 0)
        static let method = Pseudo(rawValue: 1 << 1)
        static let scheme = Pseudo(rawValue: 1 << 2)
        static let authority = Pseudo(rawValue: 1 << 3)
        static let status = Pseudo(rawValue: 1 << 4)
        static let extConnectProtocol = Pseudo(rawValue: 1 << 5)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init?(_ name: String) {
            switch name {
            case ":path": self = .path
            case ":method": self = .method
            case ":scheme": self = .scheme
            case ":authority": self = .authority
            case ":status": self = .status
            case ":protocol": self = .extConnectProtocol
            default: return nil
            }
        }
    }
}
