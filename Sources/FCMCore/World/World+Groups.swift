// SPDX-License-Identifier: Apache-2.0

/// Device groups: at most 20 members, removing the last member deletes the group
/// (docs/simulation.md, "Device groups"; https://firebase.google.com/docs/cloud-messaging/android/device-group).
extension World {
    mutating func createGroup(name: String, tokens: [String], projectIndex: Int32) throws(FCMError) -> DeviceGroup {
        let state = try projectState(projectIndex)
        guard !name.isEmpty, name.utf8.count <= 256 else {
            throw FCMError(.invalidArgument, "notification_key_name must be 1–256 characters", field: "notification_key_name")
        }
        guard state.groupKeyByName[name] == nil else {
            throw FCMError(.conflict, "notification_key already exists", field: "notification_key_name")
        }
        guard state.groups.count < settings.maxGroupsPerProject else {
            throw FCMError(
                .invalidArgument, "A project holds at most \(settings.maxGroupsPerProject) device groups", field: "notification_key_name",
                reason: .groupLimit)
        }
        let members = try validMembers(tokens, project: state.project)
        guard members.count <= settings.maxGroupMembers else {
            throw FCMError(
                .invalidArgument, "A device group has at most \(settings.maxGroupMembers) members", field: "registration_ids",
                reason: .groupMemberLimit)
        }
        let group = DeviceGroup(name: name, notificationKey: ids.notificationKey(), tokens: members, createdAt: now)
        try modifyProject(projectIndex) { (state: inout ProjectState) throws(FCMError) in
            state.groups[group.notificationKey] = group
            state.groupKeyByName[name] = group.notificationKey
        }
        log(.groupCreated, detail: name)
        return group
    }

    /// Adds or removes members; a group left empty is deleted (and nil returned).
    mutating func changeGroup(
        key: String, name: String?, add: [String], remove: [String], projectIndex: Int32
    ) throws(FCMError) -> DeviceGroup? {
        let state = try projectState(projectIndex)
        guard var group = state.groups[key] else {
            throw FCMError(.notFound, "notification_key not found", field: "notification_key")
        }
        if let name, name != group.name {
            throw FCMError(
                .invalidArgument, "notification_key_name does not match the notification_key", field: "notification_key_name",
                reason: .groupNameMismatch)
        }
        guard !add.isEmpty || !remove.isEmpty else {
            throw FCMError(.invalidArgument, "registration_ids must not be empty", field: "registration_ids")
        }
        let added = add.isEmpty ? [] : try validMembers(add, project: state.project)
        var tokens = group.tokens
        for token in added where !tokens.contains(token) { tokens.append(token) }
        guard tokens.count <= settings.maxGroupMembers else {
            throw FCMError(
                .invalidArgument, "A device group has at most \(settings.maxGroupMembers) members", field: "registration_ids",
                reason: .groupMemberLimit)
        }
        let removing = Set(remove)
        tokens.removeAll { removing.contains($0) }
        group.tokens = tokens
        let changed = group
        try modifyProject(projectIndex) { (state: inout ProjectState) throws(FCMError) in
            state.groups[key] = tokens.isEmpty ? nil : changed
            if tokens.isEmpty { state.groupKeyByName[changed.name] = nil }
        }
        if tokens.isEmpty {
            log(.groupDeleted, detail: group.name)
            return nil
        }
        log(.groupChanged, detail: group.name)
        return group
    }

    func group(named name: String, projectIndex: Int32) throws(FCMError) -> DeviceGroup {
        let state = try projectState(projectIndex)
        guard let key = state.groupKeyByName[name], let group = state.groups[key] else {
            throw FCMError(.notFound, "notification_key not found", field: "notification_key_name")
        }
        return group
    }

    private func validMembers(_ tokens: [String], project: Project) throws(FCMError) -> [String] {
        guard !tokens.isEmpty else {
            throw FCMError(.invalidArgument, "registration_ids must not be empty", field: "registration_ids")
        }
        var members: [String] = []
        for token in tokens {
            let (id, canonical) = try resolveToken(token)
            guard let device = devices[Int(id)] else {
                throw FCMError(.unregistered, "Requested entity was not found.", field: "registration_ids")
            }
            try checkSender(device, project: project)
            let member = canonical ?? token
            if !members.contains(member) { members.append(member) }
        }
        return members
    }
}
