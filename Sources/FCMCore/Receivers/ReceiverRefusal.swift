// SPDX-License-Identifier: Apache-2.0

/// Why a real receiver's registration call or login is refused; each front words it in its own
/// dialect (docs/receivers.md, "Registration answers").
package enum ReceiverRefusal: Error, Sendable, Equatable {
    /// Bad or missing credentials: a check-in's id and token, an installation's auth or refresh
    /// token (HTTP 401; register3's `AUTHENTICATION_FAILED`; an MCS login error).
    case unauthenticated(String)
    /// A malformed request (HTTP 400; register3's `INVALID_PARAMETERS`).
    case invalid(String, field: String?)
    /// No such project, installation or registration (HTTP 404).
    case notFound(String)
    /// A documented limit reached (HTTP 429 `RESOURCE_EXHAUSTED`; register3's `TOO_MANY_REGISTRATIONS`).
    case exhausted(String)

    package var message: String {
        switch self {
        case .unauthenticated(let m), .invalid(let m, _), .notFound(let m), .exhausted(let m): m
        }
    }
}
