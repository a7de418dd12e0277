// SPDX-License-Identifier: Apache-2.0

extension JSONValue {
    /// How `encoded` lays the document out.
    public enum Layout: Sendable {
        /// No white space: `{"a":1}`.
        case compact
        /// Two-space indentation and `"key": value`, the layout Google's APIs answer with
        /// (their `prettyPrint=true` default: Google's system parameters, cloud.google.com/apis/docs/system-parameters).
        case pretty
    }

    /// The document as UTF-8 text.
    public func encoded(_ layout: Layout = .compact) -> String {
        // Written as bytes and made a string once: appending to a String cost a few hundred
        // instructions a piece, and an answer of four fields has twenty pieces.
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, layout: layout, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    private func write(into out: inout [UInt8], layout: Layout, indent: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, layout, indent + 1)
                item.write(into: &out, layout: layout, indent: indent + 1)
            }
            Self.newline(&out, layout, indent)
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            if pairs.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.newline(&out, layout, indent + 1)
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if layout == .pretty { out.append(UInt8(ascii: " ")) }
                value.write(into: &out, layout: layout, indent: indent + 1)
            }
            Self.newline(&out, layout, indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ layout: Layout, _ indent: Int) {
        guard layout == .pretty else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }

    /// Writes a string literal, escaping what RFC 8259 §7 requires.
    public static func writeString(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Writes a string literal as UTF-8, escaping what RFC 8259 §7 requires.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeEscaped(s, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// A string literal's text without its quotes, so that a caller can write one literal of
    /// several strings without joining them first. By byte: the characters to escape are ASCII
    /// and no byte of a multi-byte sequence is, so the bytes say exactly what the scalars would
    /// (and pieces escape as their join would). Plain text (most of it) is checked eight bytes a
    /// step (`JSONWordScan`) and copied whole.
    public static func writeEscaped(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            let plain = JSONWordScan.plainASCII(in: bytes, from: 0)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<plain]))
            for byte in bytes[plain...] {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
                case 0x0A: out.append(contentsOf: #"\n"#.utf8)
                case 0x0D: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                case 0x08: out.append(contentsOf: #"\b"#.utf8)
                case 0x0C: out.append(contentsOf: #"\f"#.utf8)
                case 0..<0x20:
                    out.append(contentsOf: #"\u00"#.utf8)
                    out.append(hexDigits[Int(byte >> 4)])
                    out.append(hexDigits[Int(byte & 15)])
                default: out.append(byte)
                }
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
