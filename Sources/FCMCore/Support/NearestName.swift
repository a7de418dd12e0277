// SPDX-License-Identifier: Apache-2.0

/// The "did you mean" of an error message: the known name closest to a mistyped one, if it is
/// close enough to be a typo (edit distance at most a third of the longer name, and at least 1
/// and at most 3 edits), as `git` and `swift` suggest a subcommand.
package enum NearestName {
    /// Names longer than this are not compared (the distance table is quadratic in length).
    static let maxLength = 256

    package static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        guard !typed.isEmpty, typed.count <= maxLength else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let other = Array(candidate.lowercased().unicodeScalars)
            guard other.count <= maxLength else { continue }
            let allowed = min(3, max(1, max(typed.count, other.count) / 3))
            let d = distance(typed, other)
            if d <= allowed, d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        return best?.name
    }

    /// `"; did you mean 'x'?"`, or nothing: for the end of a message.
    package static func hint(for name: String, among candidates: some Sequence<String>, quote: (String) -> String = { "'\($0)'" })
        -> String
    {
        suggestion(for: name, among: candidates).map { "; did you mean \(quote($0))?" } ?? ""
    }

    /// Levenshtein distance with adjacent transpositions (optimal string alignment).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
