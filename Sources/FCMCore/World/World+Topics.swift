// SPDX-License-Identifier: Apache-2.0

extension World {
    /// Subscribes one device; nil on success, or why not.
    mutating func subscribe(device id: DeviceID, topic: String) -> FCMError? {
        guard IdentifierShape.isValidTopicName(topic) else {
            return FCMError(.invalidArgument, "Invalid topic name '\(topic)'", field: "topic")
        }
        // Reads single fields, never a copy of the device: a live copy would share its topic
        // table, so the insertion below would copy all 2000 entries under the lock.
        guard devices[Int(id)]?.tokenValid == true, let projectIndex = devices[Int(id)]?.projectIndex,
            let subscribed = devices[Int(id)]?.topics.count
        else {
            return FCMError(.notFound, "The token is not registered", field: "token")
        }
        if devices[Int(id)]?.topics[topic] != nil { return nil }
        guard subscribed < settings.maxTopicsPerInstance else {
            return FCMError(.tooManyTopics, "The instance is subscribed to \(settings.maxTopicsPerInstance) topics already", field: "topic")
        }
        devices[Int(id)]?.topics[topic] = now
        projects[Int(projectIndex)]?.topics[topic, default: []].append(id)
        log(.subscribed, device: id, detail: topic)
        return nil
    }

    mutating func unsubscribe(device id: DeviceID, topic: String) -> FCMError? {
        guard IdentifierShape.isValidTopicName(topic) else {
            return FCMError(.invalidArgument, "Invalid topic name '\(topic)'", field: "topic")
        }
        guard devices[Int(id)]?.tokenValid == true, let projectIndex = devices[Int(id)]?.projectIndex else {
            return FCMError(.notFound, "The token is not registered", field: "token")
        }
        guard devices[Int(id)]?.topics[topic] != nil else { return nil }
        devices[Int(id)]?.topics[topic] = nil
        projects[Int(projectIndex)]?.topics[topic]?.remove(id)
        if projects[Int(projectIndex)]?.topics[topic]?.isEmpty == true {
            projects[Int(projectIndex)]?.topics[topic] = nil
        }
        log(.unsubscribed, device: id, detail: topic)
        return nil
    }

    /// Resolves a token for topic management by sender `project`: the IID per-token errors.
    func deviceForTopicManagement(token: String, project: Project?) -> Result<DeviceID, FCMError> {
        guard let id = deviceID(forToken: token), let device = devices[Int(id)] else {
            if IdentifierShape.isWellFormedToken(token) || retiredTokens[token] != nil {
                return .failure(FCMError(.notFound, "The token is not registered", field: "registration_tokens"))
            }
            return .failure(FCMError(.invalidArgument, "The token is not valid", field: "registration_tokens"))
        }
        guard let project else { return .success(id) }
        do throws(FCMError) {
            try checkSender(device, project: project)
        } catch {
            return .failure(FCMError(.senderIdMismatch, "The token is not valid for this sender", field: "registration_tokens"))
        }
        return .success(id)
    }
}
