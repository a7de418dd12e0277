// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// A device's outcomes (`GET …/devices/{device}/outcomes`, docs/control-api.md, "Outcomes") as
/// text for a person: the device line, its story, then one line per outcome, newest first. What
/// `fcm-emu why` prints; any command of this executable that tells the story calls it too.
enum WhyStory {
    /// The control API's path of a device's outcomes.
    static func path(device: String, project: String) -> String {
        "/emulator/v1/projects/\(pathSegment(project))/devices/\(pathSegment(device))/outcomes"
    }

    /// The text, one line each, from the endpoint's JSON answer.
    static func lines(_ answer: JSONValue) -> [String] {
        let device = answer["device"]
        var head = "device \(device?["id"]?.stringValue ?? "?")"
        if let name = device?["name"]?.stringValue { head += " (\(name))" }
        head += ": \(device?["state"]?.stringValue ?? "?"), \(answer["stored"]?.int64Value ?? 0) stored"
        var lines = [head]
        if let token = device?["token"]?.stringValue { lines.append("token \(token)") }
        lines.append("story: \(answer["story"]?.stringValue ?? "")")
        let outcomes = answer["outcomes"]?.arrayValue ?? []
        guard !outcomes.isEmpty else { return lines }
        lines.append("outcomes, newest first:")
        let kindWidth = outcomes.map { ($0["kind"]?.stringValue ?? "").count }.max() ?? 0
        for outcome in outcomes {
            let kind = outcome["kind"]?.stringValue ?? "?"
            let fields = [
                outcome["time"]?.stringValue ?? "?", kind + String(repeating: " ", count: max(0, kindWidth - kind.count)),
                outcome["messageId"]?.stringValue ?? "-", outcome["summary"]?.stringValue ?? "",
            ]
            lines.append("  " + fields.joined(separator: "  "))
        }
        return lines
    }

    /// What an unknown device is told: what was looked for, and where.
    static func unknown(device: String, project: String, answer: String?) -> String {
        var text =
            "no device '\(device)' in project '\(project)': looked for it as a device id, a device name, "
            + "a registration token (current or retired) and a Firebase installation ID"
        if let answer, !answer.isEmpty { text += " (the emulator answered: \(answer))" }
        return text + "; name another project with --project"
    }

    /// `text` as one path segment: unreserved characters (RFC 3986 §2.3) and `:` `@` as they
    /// are, everything else percent-encoded, so a name with `/` or a space stays one segment.
    static func pathSegment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let kept =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "-._~:@".utf8.contains(byte)
            if kept {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
