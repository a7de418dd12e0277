// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// A topic or condition message on its way to its recipients. A fan-out to a million devices
/// would hold the world lock for most of a second, stalling every other client, so
/// recipients are dispatched in chunks of `FanOut.chunk`, the lock released between chunks.
/// FCM itself fans out over seconds, so devices reached later see the world as it is then.
struct FanOut: Sendable {
    /// Recipients dispatched per lock hold: about 10 ms of work.
    static let chunk = 16_384

    let message: Message
    let recipients: [DeviceID]
    /// `restricted_package_name`: Android devices of other apps are skipped.
    let restricted: String?
    var next = 0

    var isDone: Bool { next >= recipients.count }
}

extension World {
    /// Dispatches up to `budget` recipients of the pending fan-outs, oldest first; returns whether
    /// any remain.
    mutating func continueFanOuts(budget: Int = FanOut.chunk) -> Bool {
        var left = budget
        while left > 0, var job = fanOuts.popFirst() {
            let end = min(job.recipients.count, job.next + left)
            for id in job.recipients[job.next..<end] {
                if let restricted = job.restricted, let device = devices[Int(id)], device.platform == .android,
                    device.appId != restricted
                {
                    continue
                }
                noteAccepted(job.message, device: id, group: false)
                dispatch(job.message, to: id)
            }
            left -= end - job.next
            job.next = end
            if !job.isDone { fanOuts.prepend(job) }
        }
        return !fanOuts.isEmpty
    }
}
