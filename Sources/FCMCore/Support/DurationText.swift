// SPDX-License-Identifier: Apache-2.0

/// Durations as people write them in flags, config files and the control API:
/// `500ms`, `90s`, `15m`, `2h`, `28d`, a sum like `1h30m`, or a bare number of seconds.
public enum DurationText {
    /// Milliseconds, or nil when the text is not a duration.
    public static func millis(_ text: String) -> Int64? {
        let trimmed = text.trimmingSpaces
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0, seconds < 9.0e12 { return Int64(seconds * 1000) }
        var total: Int64 = 0
        var number = ""
        var unit = ""
        var sawAny = false
        func flush() -> Bool {
            guard !number.isEmpty else { return unit.isEmpty }
            guard let value = Double(number), value >= 0, value < 1e12 else { return false }
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
            if ch.isNumber || ch == "." {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(ch)
            } else if ch.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(ch)
            } else {
                return nil
            }
        }
        guard flush(), sawAny else { return nil }
        return total
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
