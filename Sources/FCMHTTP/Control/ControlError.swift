// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON

/// The control API's error dialect: Google's shape, so one parser reads every error of the
/// emulator, plus the offending `field` when there is one.
///
///     {"error": {"code": 404, "status": "NOT_FOUND", "message": "No device 'x' …", "field": "device"}}
enum ControlError {
    static func response(_ error: FCMError) -> HTTPResponse {
        let (status, name) = statusAndName(error.code)
        return response(status: status, name: name, message: error.message, field: error.field)
    }

    static func response(status: Int, name: String, message: String, field: String? = nil) -> HTTPResponse {
        let body = JSONValue.object([
            (
                "error",
                .object(omittingNils: [
                    ("code", .int(status)), ("status", .string(name)), ("message", .string(message)),
                    ("field", field.map(JSONValue.string)),
                ])
            )
        ])
        return ControlJSON.response(status: status, body)
    }

    static func statusAndName(_ code: FCMError.Code) -> (Int, String) {
        switch code {
        case .invalidArgument, .invalidRegistration, .invalidDataKey, .invalidTTL, .messageTooBig, .invalidPackageName, .tooManyTopics:
            return (400, "INVALID_ARGUMENT")
        case .unregistered, .notFound: return (404, "NOT_FOUND")
        case .senderIdMismatch: return (403, "PERMISSION_DENIED")
        case .thirdPartyAuthError: return (401, "UNAUTHENTICATED")
        case .conflict: return (409, "ALREADY_EXISTS")
        case .deviceMessageRateExceeded, .topicsMessageRateExceeded: return (429, "RESOURCE_EXHAUSTED")
        case .unavailable: return (503, "UNAVAILABLE")
        case .internalError: return (500, "INTERNAL")
        }
    }
}

/// A control-API JSON body, read strictly: unknown fields and wrong types are errors that name
/// the field, so a typo never silently does nothing.
struct ControlBody {
    let pairs: [(String, JSONValue)]

    /// Parses the body; an empty body is an empty object.
    init(_ request: HTTPRequest, allowed: Set<String>) throws(FCMError) {
        if request.body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) {
            pairs = []
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            throw FCMError(.invalidArgument, "Malformed JSON: \(error)")
        }
        guard case .object(let pairs) = value else {
            throw FCMError(.invalidArgument, "The body must be a JSON object, not \(value.typeName)")
        }
        for (key, _) in pairs where !allowed.contains(key) {
            throw FCMError(.invalidArgument, "Unknown field '\(key)'; expected one of: \(allowed.sorted().joined(separator: ", "))", field: key)
        }
        self.pairs = pairs
    }

    func value(_ key: String) -> JSONValue? {
        guard let v = pairs.first(where: { $0.0 == key })?.1, v != .null else { return nil }
        return v
    }

    func string(_ key: String) throws(FCMError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.stringValue else { throw typeError(key, "a string", v) }
        return s
    }

    func bool(_ key: String) throws(FCMError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.boolValue else { throw typeError(key, "true or false", v) }
        return b
    }

    func number(_ key: String) throws(FCMError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = v.doubleValue else { throw typeError(key, "a number", v) }
        return d
    }

    func strings(_ key: String) throws(FCMError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let items = v.arrayValue else { throw typeError(key, "an array of strings", v) }
        var out: [String] = []
        for item in items {
            guard let s = item.stringValue else { throw typeError(key, "an array of strings", item) }
            out.append(s)
        }
        return out
    }

    /// A duration: `"90s"`, `"15m"`, or a number of milliseconds.
    func durationMillis(_ key: String) throws(FCMError) -> Int64? {
        guard let v = value(key) else { return nil }
        if let ms = v.int64Value { return ms }
        if let text = v.stringValue, let ms = DurationText.millis(text) { return ms }
        throw FCMError(.invalidArgument, "Field '\(key)' must be a duration such as \"90s\", \"15m\" or a number of milliseconds", field: key)
    }

    /// One of a fixed set of strings.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(FCMError) -> T? where T.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let value = T(rawValue: s) else {
            throw FCMError(.invalidArgument, "Field '\(key)' must be one of: \(T.allCases.map(\.rawValue).joined(separator: ", ")); got '\(s)'", field: key)
        }
        return value
    }

    private func typeError(_ key: String, _ expected: String, _ got: JSONValue) -> FCMError {
        FCMError(.invalidArgument, "Field '\(key)' must be \(expected), got \(got.typeName)", field: key)
    }
}
