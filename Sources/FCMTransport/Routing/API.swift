// SPDX-License-Identifier: Apache-2.0

/// Which API a request calls, as its front declared when it mounted its paths (`Router.mount`).
/// The access log names it; the access policy, transport faults and refusal events read it from
/// the request's `Router.Resolution` rather than from paths of their own.
public enum API: String, Sendable, CaseIterable {
    /// `/v1/*`: HTTP v1 (`messages:send`, and the IAM routes the SDKs call beside it).
    case v1
    /// `/v1/projects/{p}/registrations/{token}/topicSubscriptions…`, beneath v1's paths.
    case v1Topics = "v1-topics"
    /// `/batch` and `/v1`: multipart batches of v1 calls.
    case batch
    /// `/fcm/*`, `/gcm/*`: the legacy HTTP API.
    case legacy
    /// `/fcm/send/{subscription}`: RFC 8030 Web Push to a web device's subscription (docs/receivers.md).
    case webpush
    /// Firebase Installations (`/v1/projects/{p}/installations…`), for real receivers (docs/receivers.md).
    case installations
    /// FCM registrations of web receivers (`/v1/projects/{p}/registrations`).
    case registrations
    /// Android check-in and GCM registration (`/checkin`, `/c2dm/register3`).
    case checkin
    /// `/fcm/notification`: legacy device groups.
    case groups
    /// `/iid/*`: Instance ID topic management.
    case iid
    /// Google's token endpoints.
    case oauth
    /// `/computeMetadata/*`: the GCE metadata server.
    case metadata
    /// `/emulator/*`: the control API.
    case control
    /// `/ui/*`: the dashboard's files.
    case dashboard
    /// Any other path, the root among them.
    case other
}
