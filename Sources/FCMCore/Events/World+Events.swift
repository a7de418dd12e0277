// SPDX-License-Identifier: Apache-2.0

extension World {
    func projectId(ofDevice id: DeviceID) -> String? {
        guard id >= 0, Int(id) < deviceProjects.count else { return nil }
        return projects[Int(deviceProjects[Int(id)])]?.project.id
    }

    func events(matching query: EventQuery) throws(FCMError) -> [Event] {
        var projectIndex: Int32?
        if let projectId = query.projectId { projectIndex = try self.projectIndex(id: projectId) }
        var device = query.deviceId
        if let token = query.token {
            guard let id = deviceByToken[token] ?? retiredTokens[token]?.device else { return [] }
            if let device, device != id { return [] }
            device = id
        }
        var matched: [Event] = []
        for event in events.newestFirst {
            if let kinds = query.kinds, !kinds.contains(event.kind) { continue }
            if let since = query.since, event.time < since { continue }
            if let until = query.until, event.time > until { continue }
            if let device, event.device != device { continue }
            if let id = query.messageId, event.message?.id != id, event.related?.id != id { continue }
            if let topic = query.topic {
                let aboutTopic =
                    event.message?.topic == topic
                    || ((event.kind == .subscribed || event.kind == .unsubscribed) && event.detail == topic)
                guard aboutTopic else { continue }
            }
            if let projectIndex, !belongs(event, to: projectIndex) { continue }
            matched.append(event)
            if matched.count >= query.limit { break }
        }
        return matched.reversed()
    }

    private func belongs(_ event: Event, to projectIndex: Int32) -> Bool {
        if let id = event.device { return Int(id) < deviceProjects.count && deviceProjects[Int(id)] == projectIndex }
        if let message = event.message { return projectIndexById[message.projectId] == projectIndex }
        guard let project = projects[Int(projectIndex)]?.project else { return false }
        return event.detail == project.id || event.kind == .clockAdvanced
    }
}
