// SPDX-License-Identifier: Apache-2.0

import FCMCore

extension V1Error {
    /// FCM's per-project quotas (`quotas=fcm`) as v1 answers them: 429 `RESOURCE_EXHAUSTED` with
    /// the `FcmError` detail `QUOTA_EXCEEDED` and a `google.rpc.QuotaFailure`, as the v1 ErrorCode
    /// reference documents (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode), and
    /// Google's `ErrorInfo` as the service writes it for the minute's quota (a captured body in
    /// https://github.com/firebase/firebase-admin-go/issues/719). firebase-admin reads the
    /// `FcmError` detail to raise `QuotaExceededError` (firebase-admin-python
    /// `firebase_admin/messaging.py`, `_MessagingService._build_fcm_error`). Nil for other refusals.
    static func projectQuota(_ error: FCMError) -> V1Error? {
        let details: [Detail]
        switch error.reason {
        case .projectQuota(let limit, let number):
            details = [
                .fcmError("QUOTA_EXCEEDED"),
                .quotaFailure(subject: "project_number:\(number)", description: error.message),
                .errorInfo(
                    reason: "RATE_LIMIT_EXCEEDED", domain: "googleapis.com",
                    metadata: [
                        ("quota_limit_value", String(limit)), ("consumer", "projects/\(number)"),
                        ("quota_metric", "fcm.googleapis.com/send_requests"), ("quota_unit", "1/min/{project}"),
                        ("service", "fcm.googleapis.com"), ("quota_location", "global"), ("quota_limit", "SendsPerMinutePerProject"),
                    ]),
            ]
        case .fanOutQuota, .subscriptionQuota:
            details = [.fcmError("QUOTA_EXCEEDED"), .quotaFailure(subject: "project", description: error.message)]
        default:
            return nil
        }
        return V1Error(
            status: 429, statusName: "RESOURCE_EXHAUSTED", message: error.message, details: details,
            retryAfterSeconds: error.retryAfterSeconds.map { Int($0) })
    }
}
