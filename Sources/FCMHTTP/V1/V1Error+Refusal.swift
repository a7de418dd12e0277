// SPDX-License-Identifier: Apache-2.0

import FCMCore

extension V1Error {
    /// The error as a `refused` event sees it: the code an SDK reads (the `FcmError` detail's
    /// `errorCode`, else the canonical status name, as firebase-admin picks its error class) and the
    /// message, with the field a `BadRequest` detail names.
    var refusal: Refusal {
        var code = statusName
        var field: String?
        for detail in details {
            switch detail {
            case .fcmError(let name): code = name
            case .badRequest(let name, _) where !name.isEmpty: field = field ?? name
            default: break
            }
        }
        let detail = field.map { message.contains($0) ? message : "\(message) (field \($0))" } ?? message
        return Refusal(api: "v1", status: status, code: code, target: target, detail: detail)
    }
}
