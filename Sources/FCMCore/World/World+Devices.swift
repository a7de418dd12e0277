// SPDX-License-Identifier: Apache-2.0

extension World {
    func device(_ id: DeviceID) throws(FCMError) -> Device {
        guard id >= 0, Int(id) < devices.count, let device = devices[Int(id)] else {
            throw FCMError(.notFound, "No device \(id)", field: "device")
        }
        return device
    }

    /// Finds a device of a project by id, name, token (current or retired) or FID.
    func findDevice(_ reference: String, projectIndex: Int32) throws(FCMError) -> Device {
        let state = try projectState(projectIndex)
        let id: DeviceID? =
            DeviceID(reference).flatMap { state.devices.contains($0) ? $0 : nil }
            ?? state.devicesByName[reference]
            ?? deviceID(forToken: reference)
            ?? deviceID(forFid: reference, projectIndex: projectIndex)
            ?? retiredTokens[reference]?.device
        guard let id, let device = devices[Int(id)], device.projectIndex == projectIndex else {
            throw FCMError(.notFound, "No device '\(reference)' in project '\(state.project.id)'", field: "device")
        }
        return device
    }

    mutating func createDevice(_ spec: DeviceSpec, projectIndex: Int32) throws(FCMError) -> DeviceID {
        // Read single fields rather than binding the project's state: a live copy would make the
        // in-place append below copy a million-entry set.
        guard let projectNumber = projects[Int(projectIndex)]?.project.number else {
            throw FCMError(.notFound, "No such project", field: "project")
        }
        try checkRoomForDevices(1)
        if spec.state == .doze, spec.platform != .android {
            throw FCMError(.invalidArgument, "Doze is an Android state; \(spec.platform.displayName) devices cannot doze", field: "state")
        }
        guard !spec.appId.isEmpty, spec.appId.utf8.count <= 255 else {
            throw FCMError(.invalidArgument, "appId must be 1–255 characters", field: "appId")
        }
        if let name = spec.name {
            guard !name.isEmpty, name.utf8.count <= 128 else {
                throw FCMError(.invalidArgument, "name must be 1–128 characters", field: "name")
            }
            guard projects[Int(projectIndex)]?.devicesByName[name] == nil else {
                throw FCMError(.conflict, "A device named '\(name)' already exists", field: "name")
            }
        }
        let id = DeviceID(devices.count)
        var device = Device(
            id: id, projectIndex: projectIndex, platform: spec.platform, name: spec.name, appId: spec.appId,
            state: spec.state, createdAt: now, lastConnectedAt: now, lastSeenAt: now
        )
        let fid = spec.fid ?? identities.derived.fid(device: id)
        guard deviceID(forFid: fid, projectIndex: projectIndex) == nil else {
            throw FCMError(.conflict, "fid '\(fid)' is already used", field: "fid")
        }
        let token: String
        let generation: UInt32?
        if let given = spec.token {
            guard !given.isEmpty, given.utf8.count <= 4096, given.utf8.allSatisfy({ IdentifierShape.isTokenByte($0) }) else {
                throw FCMError(.invalidArgument, "A token is 1–4096 characters of A–Z a–z 0–9 - _ :", field: "token")
            }
            guard !isIssued(given) else { throw FCMError(.conflict, "Token is already issued", field: "token") }
            (token, generation) = (given, nil)
        } else {
            guard let next = nextDerivedToken(device: id, givenFid: spec.fid, after: 0) else {
                throw FCMError(.conflict, "Token is already issued", field: "token")
            }
            (token, generation) = (next.token, next.generation)
        }
        let senders = spec.extraSenders.isEmpty ? [] : Array(Set(spec.extraSenders).subtracting([projectNumber])).sorted()
        guard senders.count + 1 <= settings.maxSendersPerInstance else {
            throw FCMError(.invalidArgument, "At most \(settings.maxSendersPerInstance) senders per instance", field: "senders")
        }
        guard senders.allSatisfy(Project.isValidNumber) else {
            throw FCMError(.invalidArgument, "Sender ids are project numbers (decimal digits)", field: "senders")
        }
        for topic in spec.topics where !IdentifierShape.isValidTopicName(topic) {
            throw FCMError(.invalidArgument, "Invalid topic name '\(topic)'", field: "topics")
        }
        // The per-instance limit holds however the instance is made.
        guard Set(spec.topics).count <= settings.maxTopicsPerInstance else {
            throw FCMError(.tooManyTopics, "An instance is subscribed to at most \(settings.maxTopicsPerInstance) topics", field: "topics")
        }
        if spec.applicationServerKey != nil, spec.platform != .web {
            throw FCMError(.invalidArgument, "applicationServerKey is for web devices", field: "applicationServerKey")
        }
        if spec.clientSdk != .current, spec.platform != .android {
            throw FCMError(.invalidArgument, "clientSdk is for Android devices", field: "clientSdk")
        }
        let webPush = spec.platform == .web ? try WebPushSubscription.make(applicationServerKey: spec.applicationServerKey) : nil
        device.extraSenders = senders
        device.clientSdk = spec.clientSdk
        device.webPush = webPush
        if let given = spec.fid {
            device.givenFid = true
            identities.givenFids[id] = given
        }
        setToken(token, generation: generation, of: &device)
        devices.append(device)
        deviceProjects.append(projectIndex)
        try modifyProject(projectIndex) { (state: inout ProjectState) throws(FCMError) in
            state.devices.append(id)
            if spec.fid != nil { state.devicesByFid[fid] = id }
            if let name = spec.name { state.devicesByName[name] = id }
        }
        log(.deviceCreated, device: id, detail: spec.state.rawValue)
        for topic in spec.topics { _ = subscribe(device: id, topic: topic) }
        if spec.state == .doze { scheduleMaintenance(id) }
        return id
    }

    /// Removes a device; its token answers as unregistered from now on.
    mutating func removeDevice(_ id: DeviceID, logged: Bool = true) {
        guard let device = devices[Int(id)] else { return }
        emptyInbox(of: id)
        for topic in device.topics.keys {
            projects[Int(device.projectIndex)]?.topics[topic]?.remove(id)
            // As an unsubscription does: a topic nobody is subscribed to is no entry (World+Topics).
            if projects[Int(device.projectIndex)]?.topics[topic]?.isEmpty == true {
                projects[Int(device.projectIndex)]?.topics[topic] = nil
            }
        }
        projects[Int(device.projectIndex)]?.devices.remove(id)
        if device.givenFid {
            let fid = fid(of: device)
            projects[Int(device.projectIndex)]?.devicesByFid[fid] = nil
            identities.givenFids[id] = nil
        }
        if let name = device.name { projects[Int(device.projectIndex)]?.devicesByName[name] = nil }
        let token = token(of: device)
        dropValidToken(token, of: device)
        if device.givenToken { identities.givenTokens[id] = nil }
        retiredTokens[token] = RetiredToken(device: id, canonicalUntil: nil)
        devices[Int(id)] = nil
        outcomes.remove(id)
        if logged { log(.deviceDeleted, device: id) }
    }

    /// Moves a device to a new state (docs/simulation.md, "Device states").
    mutating func setState(_ id: DeviceID, to newState: DeviceState) throws(FCMError) {
        guard var device = devices[Int(id)] else { throw FCMError(.notFound, "No device \(id)", field: "device") }
        let old = device.state
        guard old != newState else { return }
        if newState == .doze, device.platform != .android {
            throw FCMError(.invalidArgument, "Doze is an Android state; \(device.platform.displayName) devices cannot doze", field: "state")
        }
        if old == .uninstalled {
            throw FCMError(.conflict, "The app is uninstalled; refresh the device's token to reinstall it", field: "state")
        }
        // An Android app back after its token expired gets a new one (manage-tokens guide).
        let expired = isExpired(device)
        if old.isConnected, !newState.isConnected {
            device.lastConnectedAt = now
            device.lastSeenAt = now
        }
        let connecting = !old.isConnected && newState.isConnected
        if connecting {
            device.lastConnectedAt = now
            device.lastSeenAt = now
            // Rule 5: back within four weeks of a message discarded for inactivity.
            if let discarded = device.lastInactiveDiscardAt,
                now.millis(since: discarded) <= settings.deletedSignalWindowSeconds * 1000
            {
                device.deletedSignalOwed = true
            }
            device.lastInactiveDiscardAt = nil
        }
        // Removing an app removes its notifications from the tray.
        if newState == .uninstalled { device.tray = [] }
        device.state = newState
        device.stateGeneration &+= 1
        devices[Int(id)] = device
        log(.stateChanged, device: id, detail: "\(old.rawValue)→\(newState.rawValue)")
        if connecting, expired {
            invalidateToken(id)
            try refreshToken(id, newToken: nil)
        }
        switch newState {
        case .doze:
            scheduleMaintenance(id)
            flush(device: id, maintenance: false)
        case .foreground, .background:
            flush(device: id, maintenance: false)
        case .uninstalled:
            discardStoreOfUninstalledApp(id)
        case .offline:
            break
        }
    }

    /// Gives the instance a new token; the old one answers with the new one as its canonical id
    /// during the grace period, then as unregistered (docs/simulation.md, "Tokens"). An uninstalled app is reinstalled.
    mutating func refreshToken(_ id: DeviceID, newToken: String?) throws(FCMError) {
        guard var device = devices[Int(id)] else { throw FCMError(.notFound, "No device \(id)", field: "device") }
        let token: String
        let generation: UInt32?
        if let newToken {
            guard !isIssued(newToken) else { throw FCMError(.conflict, "Token is already issued", field: "token") }
            (token, generation) = (newToken, nil)
        } else {
            guard let next = nextDerivedToken(device: id, givenFid: givenFid(of: device), after: device.tokenGeneration &+ 1) else {
                throw FCMError(.conflict, "Token is already issued", field: "token")
            }
            (token, generation) = (next.token, next.generation)
        }
        let old = self.token(of: device)
        dropValidToken(old, of: device)
        let grace = settings.tokenRefreshGraceSeconds
        retiredTokens[old] = RetiredToken(device: id, canonicalUntil: device.tokenValid && grace > 0 ? now.adding(seconds: grace) : nil)
        device.tokenValid = true
        device.lastSeenAt = now
        setToken(token, generation: generation, of: &device)
        devices[Int(id)] = device
        log(.tokenRefreshed, device: id)
        if device.state == .uninstalled {
            devices[Int(id)]?.state = .offline
            try setState(id, to: .background)
        }
    }

    /// FCM noticed the app is gone: the token is invalid from now on (docs/simulation.md, "Uninstall").
    mutating func invalidateToken(_ id: DeviceID) {
        guard var device = devices[Int(id)], device.tokenValid else { return }
        let token = token(of: device)
        dropValidToken(token, of: device)
        device.tokenValid = false
        retiredTokens[token] = RetiredToken(device: id, canonicalUntil: nil)
        devices[Int(id)] = device
        log(.tokenInvalidated, device: id)
    }

    /// Refuses a sender list that `setSenders` would refuse, without changing anything.
    func checkSenders(_ extra: [String]) throws(FCMError) {
        guard extra.count + 1 <= settings.maxSendersPerInstance, extra.allSatisfy(Project.isValidNumber) else {
            throw FCMError(.invalidArgument, "At most \(settings.maxSendersPerInstance) senders, each a project number", field: "senders")
        }
    }

    mutating func setSenders(_ id: DeviceID, extra: [String]) throws(FCMError) {
        guard var device = devices[Int(id)] else { throw FCMError(.notFound, "No device \(id)", field: "device") }
        try checkSenders(extra)
        device.extraSenders = Array(Set(extra)).sorted()
        devices[Int(id)] = device
    }
}
