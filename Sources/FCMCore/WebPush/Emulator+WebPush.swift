// SPDX-License-Identifier: Apache-2.0

extension Emulator {
    /// The subscription a Web Push endpoint's id names (docs/receivers.md). The id is the web
    /// device's registration token: the endpoint is `https://fcm.googleapis.com/fcm/send/<token>`.
    package func webPushTarget(_ subscriptionId: String) -> WebPushTarget {
        withWorld { w in
            if let id = w.deviceID(forToken: subscriptionId), let device = w.devices[Int(id)] {
                guard let subscription = device.webPush else { return .unknown }
                if device.state == .uninstalled || !device.tokenValid || w.isExpired(device) { return .gone }
                guard let project = w.projects[Int(device.projectIndex)]?.project else { return .gone }
                return .active(subscription, projectId: project.id, token: w.token(of: device))
            }
            if let registration = w.receivers.registrations[subscriptionId] {
                guard let id = registration.device, let device = w.devices[Int(id)], let link = device.receiver, device.tokenValid,
                    let project = w.projects[Int(device.projectIndex)]?.project
                else { return .gone }
                return .relay(link, projectId: project.id, token: w.token(of: device))
            }
            // A deleted device's token, or one a refresh replaced: the subscription has expired.
            return w.retiredTokens[subscriptionId] == nil ? .unknown : .gone
        }
    }
}
