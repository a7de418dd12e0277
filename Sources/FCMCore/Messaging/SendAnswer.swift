// SPDX-License-Identifier: Apache-2.0

/// Who a front's send request comes from. The core resolves it in the send's own world call, with
/// the front's credentials rule (`admit`), so no project, key or group changes between the check
/// and the send.
package enum Sender: Sendable, Equatable {
    /// A project by id or number: the v1 path's, a CCS login's, a legacy bearer's grant.
    case project(String)
    /// The project holding this legacy server key (`Authorization: key=…`); when none does and the
    /// call is admitted all the same (lax credentials), each token's own project, as `tokenOwner`.
    case serverKey(String)
    /// Lax legacy credentials: each token's own project, the demo project for anything else.
    case tokenOwner
}

/// What one front request's sends came to, in the order they were asked.
package struct SendAnswer: Sendable {
    package struct Item: Sendable {
        /// The project the message went out as, as the sender named it (id or number), or the
        /// token's own project for `tokenOwner`; the demo project when there is none.
        package let projectId: String
        /// The key named one of the sender's device groups and the message went to the group.
        package let toGroup: Bool
        /// nil when nothing was sent: a `groupOrNothing` key that names no group.
        package let result: Result<SendOutcome, FCMError>?
    }

    /// The id of the project the sender named, when it exists.
    package let senderId: String?
    package let items: [Item]
    /// The legacy `multicast_id`, when asked for and no item went to a group.
    package let multicastId: Int64?
}
