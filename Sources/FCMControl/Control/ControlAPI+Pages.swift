// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// Paged list answers: `?offset=N&limit=M`, and `total` and `nextOffset` in the answer. A page
/// also ends at `maxAnswerBytes` of text (names, keys, tokens and a fixed allowance per entry), so
/// no list is built whole in memory however large the world.
extension ControlAPI {
    /// The byte budget of one list page.
    static let maxAnswerBytes = 8 << 20
    /// Entries one page may hold.
    static let pageLimits = 1...100_000

    /// `offset` (from 0) and `limit` (`pageLimits`) of a list request, in strict decimal.
    static func pageQuery(_ request: HTTPRequest, defaultLimit: Int) throws(FCMError) -> (offset: Int, limit: Int) {
        let offset = request.queryValue("offset").map(strictCount) ?? 0
        let limit = request.queryValue("limit").map(strictCount) ?? defaultLimit
        guard let offset, let limit, offset >= 0, pageLimits.contains(limit) else {
            throw FCMError(
                .invalidArgument, "offset must be ≥ 0 and limit \(pageLimits.lowerBound)–\(pageLimits.upperBound)", field: "limit")
        }
        return (offset, limit)
    }

    /// A whole number of ASCII digits only (`Int("+5")` would take the sign).
    static func strictCount(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }

    /// `{"<key>": [entries], "total": N, "nextOffset": M}` (`nextOffset` only when more follow).
    static func pageResponse<T>(_ key: String, _ page: ListPage<T>, _ entry: (T) -> JSONValue) -> HTTPResponse {
        ControlJSON.response(
            .object(omittingNils: [
                (key, .array(page.items.map(entry))), ("total", .int(page.total)), ("nextOffset", page.nextOffset.map(JSONValue.int)),
            ]))
    }
}
