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
        var out = ""
        // Most answers are a line or a few: room for one up front spares the string's first
        // three or four regrowths.
        out.reserveCapacity(256)
        write(into: &out, layout: layout, indent: 0)
        return out
    }

    private func write(into out: inout String, layout: Layout, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text): out += text
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                Self.newline(&out, layout, indent + 1)
                item.write(into: &out, layout: layout, indent: indent + 1)
            }
            Self.newline(&out, layout, indent)
            out += "]"
        case .object(let pairs):
            if pairs.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                Self.newline(&out, layout, indent + 1)
                Self.writeString(key, into: &out)
                out += layout == .pretty ? ": " : ":"
                value.write(into: &out, layout: layout, indent: indent + 1)
            }
            Self.newline(&out, layout, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ layout: Layout, _ indent: Int) {
        guard layout == .pretty else { return }
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Whether `s` holds a byte JSON must escape, read from its contiguous bytes where it can be
    /// (a closure over the view cost a thousand instructions for a message id), eight at a time
    /// while they are plain ASCII (`JSONWordScan`).
    private static func needsEscaping(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            bytes[JSONWordScan.plainASCII(in: bytes, from: 0)...].contains {
                $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
            }
        }
    }

    /// Writes a string literal, escaping what RFC 8259 §7 requires.
    public static func writeString(_ s: String, into out: inout String) {
        // Fast path: nothing to escape, so the text goes in whole.
        if !needsEscaping(s) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
