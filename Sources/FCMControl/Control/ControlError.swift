// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMLegacyFormat
import FCMTransport

/// The control API's error dialect: Google's shape, so one parser reads every error of the
/// emulator, plus the offending `field` when there is one.
///
///     {"error": {"code": 404, "status": "NOT_FOUND", "message": "No device 'x' …", "field": "device"}}
enum ControlError {
    static func response(_ error: FCMError) -> HTTPResponse {
        // A cap of the emulator's own collections is a quota, so 429 as Google's APIs answer one
        // (https://google.aip.dev/193); FCM's own limits keep their codes.
        let (status, name) = error.reason == .limitReached ? (429, "RESOURCE_EXHAUSTED") : statusAndName(error.code)
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
    private let fields: TypedFields<FCMError>

    /// Parses the body; an empty body is an empty object.
    init(_ request: HTTPRequest, allowed: Set<String>) throws(FCMError) {
        var pairs: [(String, JSONValue)] = []
        if !request.body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) {
            let value: JSONValue
            do {
                value = try JSONParser.parse(request.body)
            } catch {
                throw FCMError(.invalidArgument, "Malformed JSON: \(error)")
            }
            guard case .object(let object) = value else {
                throw FCMError(.invalidArgument, "The body must be a JSON object, not \(value.typeName)")
            }
            for (key, _) in object where !allowed.contains(key) {
                throw FCMError(
                    .invalidArgument, "Unknown field '\(key)'; expected one of: \(allowed.sorted().joined(separator: ", "))", field: key)
            }
            pairs = object
        }
        fields = TypedFields(pairs: pairs) { key, expected, got in
            let wanted: String =
                switch expected {
                case .string: "a string"
                case .boolean: "true or false"
                case .number: "a number"
                case .array, .arrayOfStrings: "an array of strings"
                case .object: "an object"
                }
            return FCMError(.invalidArgument, "Field '\(key)' must be \(wanted), got \(got.typeName)", field: key)
        }
    }

    func value(_ key: String) -> JSONValue? { fields.value(key) }
    func string(_ key: String) throws(FCMError) -> String? { try fields.string(key) }
    func number(_ key: String) throws(FCMError) -> Double? { try fields.number(key) }
    func bool(_ key: String) throws(FCMError) -> Bool? { try fields.bool(key) }
    func strings(_ key: String) throws(FCMError) -> [String]? { try fields.strings(key) }

    /// A duration: `"90s"`, `"15m"`, or a number of milliseconds.
    func durationMillis(_ key: String) throws(FCMError) -> Int64? {
        guard let v = value(key) else { return nil }
        if let ms = v.int64Value { return ms }
        if let text = v.stringValue, let ms = DurationText.millis(text) { return ms }
        throw FCMError(
            .invalidArgument, "Field '\(key)' must be a duration such as \"90s\", \"15m\" or a number of milliseconds", field: key)
    }

    /// One of a fixed set of strings.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(FCMError) -> T? where T.RawValue == String {
        guard let s = try string(key) else { return nil }
        guard let value = T(rawValue: s) else {
            throw FCMError(
                .invalidArgument, "Field '\(key)' must be one of: \(T.allCases.map(\.rawValue).joined(separator: ", ")); got '\(s)'",
                field: key)
        }
        return value
    }
}
