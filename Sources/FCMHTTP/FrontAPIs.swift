// SPDX-License-Identifier: Apache-2.0

import FCMTransport

/// The APIs of the fronts in this module, as each mounts its paths: the names the access log,
/// fault rules (`match.api`) and refusal events use. All are Google's services the emulator stands
/// in for, so all pass the access policy's `standIn` plane.
extension API {
    /// `/v1/*`: HTTP v1 (`messages:send`, and the IAM routes the SDKs call beside it).
    public static let v1 = API("v1")
    /// `/v1/projects/{p}/registrations/{token}/topicSubscriptions…`, beneath v1's paths.
    public static let v1Topics = API("v1-topics")
    /// `/batch` and `/v1`: multipart batches of v1 calls.
    public static let batch = API("batch")
    /// `/fcm/*`, `/gcm/*`: the legacy HTTP API.
    public static let legacy = API("legacy")
    /// `/fcm/send/{subscription}`: RFC 8030 Web Push to a web device's subscription (docs/receivers.md).
    public static let webpush = API("webpush")
    /// Firebase Installations (`/v1/projects/{p}/installations…`), for real receivers (docs/receivers.md).
    public static let installations = API("installations")
    /// FCM registrations of web receivers (`/v1/projects/{p}/registrations`).
    public static let registrations = API("registrations")
    /// Android check-in and GCM registration (`/checkin`, `/c2dm/register3`).
    public static let checkin = API("checkin")
    /// `/fcm/notification`: legacy device groups.
    public static let groups = API("groups")
    /// `/iid/*`: Instance ID topic management.
    public static let iid = API("iid")
    /// Google's token endpoints.
    public static let oauth = API("oauth")
    /// `/computeMetadata/*`: the GCE metadata server.
    public static let metadata = API("metadata")
}
