// SPDX-License-Identifier: Apache-2.0

import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// An HTTP/2 request's header block as the HTTP/1 head `HTTPRequestHandler` reads, made as NIO's
/// codec makes it (`HTTPRequestHead(http2HeaderBlock:isEndStream:)` in swift-nio-http2), so
/// requests read the same as before `HTTP2StreamCodec` took its place, errors and all:
///
/// - `:method`, `:path`, `:scheme` and `:authority` must each be there once, with no control
///   byte, space or DEL in their values (NIO's `MissingPseudoHeader`, `DuplicatePseudoHeader`,
///   `InvalidPseudoHeaderValue`; the connection's own checks, RFC 9113 §8.3.1, come first);
/// - `host` is `:authority` when the request has none;
/// - a request whose method may carry a body and that has no `content-length` gets `0` when the
///   HEADERS frame ends the stream, and `transfer-encoding: chunked` when a body may follow;
/// - the other fields follow in their order, pseudo-fields aside.
struct HTTP2RequestHead {
    let head: HTTPRequestHead
    let authority: String

    init(_ block: HPACKHeaders, endStream: Bool) throws {
        var pseudo = (method: Pseudo(), path: Pseudo(), scheme: Pseudo(), authority: Pseudo())
        var hasHost = false
        var hasLength = false
        for (name, value, _) in block {
            guard name.utf8.first == UInt8(ascii: ":") else {
                if name.equalsIgnoringASCIICase("host") {
                    hasHost = true
                } else if name.equalsIgnoringASCIICase("content-length") {
                    hasLength = true
                }
                continue
            }
            switch name {
            case ":method": pseudo.method.found(value)
            case ":path": pseudo.path.found(value)
            case ":scheme": pseudo.scheme.found(value)
            case ":authority": pseudo.authority.found(value)
            default: break
            }
        }
        // Asked in NIO's order, so a block with several faults names the one NIO names.
        let method = try pseudo.method.value(":method")
        let path = try pseudo.path.value(":path")
        _ = try pseudo.scheme.value(":scheme")
        let authority = try pseudo.authority.value(":authority")

        let httpMethod = HTTPMethod(rawValue: method)
        var fields: [(String, String)] = []
        fields.reserveCapacity(block.count)
        if !hasHost { fields.append(("host", authority)) }
        switch httpMethod {
        case .GET, .HEAD, .DELETE, .CONNECT, .TRACE: break
        default:
            if !hasLength { fields.append(endStream ? ("content-length", "0") : ("transfer-encoding", "chunked")) }
        }
        for (name, value, _) in block where name.utf8.first != UInt8(ascii: ":") { fields.append((name, value)) }
        head = HTTPRequestHead(version: .http2, method: httpMethod, uri: path, headers: HTTPHeaders(fields))
        self.authority = authority
    }

    /// One pseudo-field as the block gives it: it may come once, and its value holds no control
    /// byte, space or DEL (NIO's `isValidPseudoHeaderValue`: a space in `:path` would make an
    /// ambiguous request line).
    private struct Pseudo {
        var first: String?
        var repeated = false

        mutating func found(_ value: String) {
            if first == nil { first = value } else { repeated = true }
        }

        func value(_ name: String) throws -> String {
            guard let first else { throw NIOHTTP2Errors.missingPseudoHeader(name) }
            guard !repeated else { throw NIOHTTP2Errors.duplicatePseudoHeader(name) }
            guard !first.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw NIOHTTP2Errors.invalidPseudoHeaderValue(name: name, value: first)
            }
            return first
        }
    }
}
