// SPDX-License-Identifier: Apache-2.0

/// A point on the emulator's clock: milliseconds since the Unix epoch.
///
/// The core never reads the system clock; every instant comes from the `Emulator`'s clock, which
/// `serve` drives from wall time and scenarios and tests drive by hand.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    package var millis: Int64

    package init(millis: Int64) { self.millis = millis }

    /// 2026-01-01T00:00:00Z: where a purely virtual clock starts unless told otherwise.
    public static let virtualEpoch = Instant(millis: 1_767_225_600_000)

    /// 9999-12-31T23:59:59.999Z: the clock goes no further, so that every deadline computed from
    /// it (now + TTL, + Doze windows, + four weeks) still fits.
    package static let latest = Instant(millis: 253_402_300_799_999)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.millis < rhs.millis }

    /// This instant moved by `millis` (negative moves back), saturating rather than wrapping.
    package func adding(millis delta: Int64) -> Instant {
        let (sum, overflowed) = millis.addingReportingOverflow(delta)
        return Instant(millis: overflowed ? (delta > 0 ? .max : .min) : sum)
    }

    /// This instant moved by whole seconds.
    package func adding(seconds: Int64) -> Instant {
        let (delta, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        return adding(millis: overflowed ? (seconds > 0 ? .max : .min) : delta)
    }

    /// Milliseconds from `other` to this instant, saturating.
    package func millis(since other: Instant) -> Int64 {
        let (difference, overflowed) = millis.subtractingReportingOverflow(other.millis)
        return overflowed ? (other.millis > millis ? .min : .max) : difference
    }

    public var description: String { iso8601 }
}

// MARK: - Calendar arithmetic

extension Instant {
    /// RFC 3339 in UTC with milliseconds, e.g. `2026-01-01T00:00:00.000Z`.
    package var iso8601: String {
        let (days, msOfDay) = Self.floorDivide(millis, 86_400_000)
        let (y, m, d) = Self.civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = msOfDay / 60_000 % 60, s = msOfDay / 1000 % 60, ms = msOfDay % 1000
        return
            "\(Self.pad(y, 4))-\(Self.pad(m, 2))-\(Self.pad(d, 2))"
            + "T\(Self.pad(h, 2)):\(Self.pad(mi, 2)):\(Self.pad(s, 2)).\(Self.pad(ms, 3))Z"
    }

    /// `yyyy-mm-dd` in UTC, the form of IID's `addDate` (https://developers.google.com/instance-id/reference/server).
    package var date: String { String(iso8601.prefix(10)) }

    /// Parses RFC 3339 (`2026-01-01T10:00:00Z`, with an optional fraction and `+hh:mm` offset).
    package init?(iso8601 text: String) {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= chars.count else { return nil }
            var v: Int64 = 0
            for c in chars[from..<from + count] {
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard chars.count >= 20, chars[4] == 45, chars[7] == 45, chars[10] == 84 || chars[10] == 116,
            chars[13] == 58, chars[16] == 58,
            let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2),
            let h = number(11, 2), let mi = number(14, 2), let s = number(17, 2),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var index = 19
        var fractionMillis: Int64 = 0
        if index < chars.count, chars[index] == 46 {
            index += 1
            var digits = 0
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 {
                if digits < 3 { fractionMillis = fractionMillis * 10 + Int64(chars[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            // Fewer than three digits scale up ("5" is 500 ms); more are truncated.
            var scale = digits
            while scale < 3 {
                fractionMillis *= 10
                scale += 1
            }
        }
        var offsetMillis: Int64 = 0
        guard index < chars.count else { return nil }
        if chars[index] == 90 || chars[index] == 122 {
            index += 1
        } else if chars[index] == 43 || chars[index] == 45, let oh = number(index + 1, 2), index + 3 < chars.count,
            chars[index + 3] == 58, let om = number(index + 4, 2)
        {
            offsetMillis = (oh * 60 + om) * 60_000 * (chars[index] == 45 ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == chars.count else { return nil }
        let days = Self.days(fromCivil: y, mo, d)
        millis = ((days * 24 + h) * 60 + mi) * 60_000 + s * 1000 + fractionMillis - offsetMillis
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    private static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
