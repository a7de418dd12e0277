// SPDX-License-Identifier: Apache-2.0

extension Double {
    /// The number with `digits` digits after the point, rounded half away from zero: what
    /// `String(format: "%.2f")` printed, which only full Foundation has (docs/development.md,
    /// "The binary"). For figures people read (reports, benchmarks), not for JSON.
    package func fixed(_ digits: Int) -> String {
        guard isFinite else { return description }
        let digits = max(0, min(digits, 9))
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return description }
        let whole = UInt64(scaled)
        let unit = UInt64(scale)
        let sign = self < 0 && whole > 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let fraction = String(whole % unit)
        return sign + String(whole / unit) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
