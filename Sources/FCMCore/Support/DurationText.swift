// SPDX-License-Identifier: Apache-2.0

/// Durations as people write them in flags, config files and the control API:
/// `500ms`, `90s`, `15m`, `2h`, `28d`, a sum like `1h30m`, or a bare number of seconds. Numbers are
/// plain decimals (`2.5`): not what `Double(_:)` also reads (`0x10`, `1e3`, `+5`, `inf`), which
/// made `timeout=0x10` a 16-second wait.
package enum DurationText {
    /// Milliseconds, or nil when the text is not a duration.
    package static func millis(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces
        if let seconds = plainDecimal(Substring(trimmed)) {
            guard seconds < 9.0e12 else { return nil }
            return Int64(seconds * 1000)
        }
        var total: Int64 = 0
        var number = ""
        var unit = ""
        var sawAny = false
        func flush() -> Bool {
            guard !number.isEmpty else { return unit.isEmpty }
            guard let value = plainDecimal(Substring(number)), value < 1e12 else { return false }
            let scale: Double
            switch unit {
            case "ms": scale = 1
            case "s": scale = 1000
            case "m": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            case "w": scale = 604_800_000
            default: return false
            }
            // Refuse what does not fit rather than trap: peers write these (control API).
            let millis = value * scale
            guard millis < 9.0e15, Double(total) + millis < 9.0e15 else { return false }
            total += Int64(millis)
            number = ""
            unit = ""
            sawAny = true
            return true
        }
        for ch in trimmed {
            if ch.isASCII && (ch.isNumber || ch == ".") {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(ch)
            } else if ch.isASCII && ch.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(ch)
            } else {
                return nil
            }
        }
        guard flush(), sawAny else { return nil }
        return total
    }

    /// `digits` or `digits.digits`, ASCII only, at most 20 characters; nil for anything else.
    static func plainDecimal(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.count <= 20 else { return nil }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        for part in parts where part.isEmpty || !part.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        return Double(text)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
