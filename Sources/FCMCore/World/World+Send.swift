// SPDX-License-Identifier: Apache-2.0

extension World {
    /// Accepts a message for `projectIndex` and routes it (docs/simulation.md: the acceptance checks'
    /// rows, then "Targets"). Throws before changing anything but the quota's count when a check fails.
    mutating func send(_ request: SendRequest, projectIndex: Int32) throws(FCMError) -> SendOutcome {
        // Every attempt that reaches the world counts, refused or accepted (RetryLedger).
        var request = request
        let retryKey = request.fingerprint.map { RetryLedger.key(fingerprint: $0, target: request.target.description) }
        if let retryKey, !request.validateOnly {
            request.retry = retries.attempt(retryKey, at: now, windowMillis: settings.retryWindowSeconds * 1000)
        }
        let outcome = try send(checked: request, projectIndex: projectIndex)
        if let retryKey, let message = outcome.message { retries.accepted(retryKey, messageId: message.id) }
        return outcome
    }

    private mutating func send(checked request: SendRequest, projectIndex: Int32) throws(FCMError) -> SendOutcome {
        let state = try projectState(projectIndex)
        let project = state.project
        let toTopic: Bool
        switch request.target {
        case .topic, .condition: toTopic = true  // a condition send is a topic message (2048 bytes)
        default: toTopic = false
        }
        try injectFault(for: request, project: project)
        let toFanOut: Bool
        switch request.target {
        case .topic, .condition: toFanOut = true
        default: toFanOut = false
        }
        try checkMessageQuota(projectIndex: projectIndex, project: project, toTopic: toFanOut)
        do {
            let outcome = try route(request, state: state, projectIndex: projectIndex, toTopic: toTopic)
            chargeMessage(projectIndex: projectIndex)
            return outcome
        } catch {
            if !error.isRateRefusal { chargeMessage(projectIndex: projectIndex) }
            throw error
        }
    }

    /// A sender as the world finds it, once for all of a request's sends: the project as it was
    /// named (nil for each token's own project), and that project's index and id (nil when there
    /// is no such project).
    struct SenderProject {
        let name: String?
        let index: Int32?
        let id: String?
    }

    func senderProject(_ sender: Sender) -> SenderProject {
        switch sender {
        case .project(let name):
            let index = projectIndexById[name] ?? projectIndexByNumber[name]
            return SenderProject(name: name, index: index, id: index.flatMap { projects[Int($0)]?.project.id })
        case .serverKey(let key):
            guard let index = projects.firstIndex(where: { $0?.project.serverKeys.contains(key) == true }),
                let id = projects[index]?.project.id
            else { return SenderProject(name: nil, index: nil, id: nil) }
            return SenderProject(name: id, index: Int32(index), id: id)
        case .tokenOwner:
            return SenderProject(name: nil, index: nil, id: nil)
        }
    }

    /// The project a sender names, nil when there is none.
    func project(_ found: SenderProject) -> Project? { found.index.flatMap { projects[Int($0)]?.project } }

    /// Where one of a front request's sends goes.
    struct SendDestination {
        /// The project as the sender named it, or the token's own (lax); the demo project's id when
        /// there is none.
        let projectId: String
        /// Nil when there is no such project.
        let projectIndex: Int32?
        /// The device group the request's key names, when it names one.
        let groupKey: String?
    }

    /// Where `request` goes as `sender`: the group key looked up, and a sender with no name acting
    /// as each token's own project, and as the demo project for the rest. Nil when nothing is sent
    /// (a `groupOrNothing` key that names no group).
    func destination(of request: SendRequest, as sender: SenderProject) -> SendDestination? {
        let named = sender.name ?? DemoProject.id
        let namedIndex = sender.name == nil ? projectIndexById[DemoProject.id] : sender.index
        switch request.groupLookup {
        case .none: break
        case .tokenOrGroup:
            if case .token(let key) = request.target, hasGroup(key, in: namedIndex) {
                return SendDestination(projectId: named, projectIndex: namedIndex, groupKey: key)
            }
        case .groupOrNothing:
            if case .notificationKey(let key) = request.target {
                guard hasGroup(key, in: namedIndex) else { return nil }
                return SendDestination(projectId: named, projectIndex: namedIndex, groupKey: key)
            }
        }
        if sender.name == nil, case .token(let token) = request.target, let id = deviceID(forToken: token), let device = devices[Int(id)] {
            // Lax senders act as the token's own project.
            let owner = projects[Int(device.projectIndex)]
            return SendDestination(
                projectId: owner?.project.id ?? "", projectIndex: owner == nil ? nil : device.projectIndex, groupKey: nil)
        }
        return SendDestination(projectId: named, projectIndex: namedIndex, groupKey: nil)
    }

    /// Sends `request` to `destination`: to the group when its key names one.
    mutating func send(_ request: SendRequest, to destination: SendDestination) throws(FCMError) -> SendOutcome {
        // No index: no such project, which `projectIndex` says in its words.
        var index = destination.projectIndex ?? 0
        if destination.projectIndex == nil { index = try projectIndex(idOrNumber: destination.projectId) }
        if let key = destination.groupKey, case .token = request.target {
            var toGroup = request
            toGroup.target = .notificationKey(key)
            return try send(toGroup, projectIndex: index)
        }
        return try send(request, projectIndex: index)
    }

    private func hasGroup(_ key: String, in projectIndex: Int32?) -> Bool {
        projectIndex.flatMap { projects[Int($0)]?.groups[key] } != nil
    }

    /// A positive 19-digit number from the seeded generator (legacy `multicast_id`).
    mutating func randomMulticastId() -> Int64 {
        Int64(bitPattern: 1_000_000_000_000_000_000 + ids.random.next() % 8_000_000_000_000_000_000)
    }

    /// The checks and routing of an accepted request, after the fault injector and the quota.
    private mutating func route(_ request: SendRequest, state: ProjectState, projectIndex: Int32, toTopic: Bool) throws(FCMError) -> SendOutcome {
        let project = state.project
        try AcceptanceChecks.check(request.content, toTopic: toTopic)
        let ttlZero = request.content.ttlSeconds == 0 || request.content.android?.ttlSeconds == 0

        switch request.target {
        case .token(let token):
            let (id, canonical) = try resolveToken(token)
            return try sendToDevice(id, request: request, project: project, canonical: canonical, ttlZero: ttlZero)
        case .fid(let fid):
            let found = deviceID(forFid: fid, projectIndex: projectIndex)
            guard let id = found, devices[Int(id)]?.tokenValid == true else {
                var error = FCMError(.unregistered, "Requested entity was not found.", field: "message.fid")
                error.apnsError = found.flatMap(apnsAnswerForInvalidToken)
                throw error
            }
            return try sendToDevice(id, request: request, project: project, canonical: nil, ttlZero: ttlZero)
        case .topic(let name):
            guard IdentifierShape.isValidTopicName(name) else {
                throw FCMError(.invalidArgument, "Invalid topic name '\(name)'", field: "message.topic")
            }
            if !ttlZero { try checkRate(settings.topicRateLimit, key: "t:\(project.id):\(name)", code: .topicsMessageRateExceeded) }
            try checkFanOutQuota(project: project)
            guard !request.validateOnly else { return Self.validated }
            let recipients = Array(state.topics[name] ?? [])
            return fanOut(request, project: project, recipients: recipients)
        case .condition(let condition):
            try checkFanOutQuota(project: project)
            guard !request.validateOnly else { return Self.validated }
            return fanOut(request, project: project, recipients: matching(condition, in: state))
        case .notificationKey(let key):
            guard let group = state.groups[key] else {
                throw FCMError(.notFound, "No device group with this notification key", field: "to")
            }
            return try sendToGroup(group, request: request, project: project)
        }
    }

    private static let validated = SendOutcome(
        message: nil, messageId: "fake_message_id", canonicalToken: nil, groupSuccess: 0, groupFailedTokens: [])

    /// The device a token names, and its canonical token when the one given was refreshed.
    func resolveToken(_ token: String) throws(FCMError) -> (DeviceID, String?) {
        if let id = deviceID(forToken: token) { return (id, nil) }
        if let retired = retiredTokens[token] {
            if let until = retired.canonicalUntil, now < until, let device = devices[Int(retired.device)], device.tokenValid {
                return (retired.device, self.token(of: device))
            }
            var error = FCMError(.unregistered, "Requested entity was not found.", field: "message.token")
            error.apnsError = apnsAnswerForInvalidToken(retired.device)
            throw error
        }
        if IdentifierShape.isWellFormedToken(token) {
            throw FCMError(.unregistered, "Requested entity was not found.", field: "message.token")
        }
        throw FCMError(.invalidRegistration, "The registration token is not a valid FCM registration token", field: "message.token")
    }

    /// An iOS app FCM found uninstalled: APNs answered 410 `Unregistered` for its device token, and
    /// FCM passes that on beside UNREGISTERED (https://firebase.google.com/docs/reference/fcm/rest/v1/ApnsError).
    /// A token retired by a refresh was never refused by APNs, and other platforms have no such detail.
    private func apnsAnswerForInvalidToken(_ id: DeviceID) -> FCMError.APNsAnswer? {
        guard let device = devices[Int(id)], device.platform == .ios, !device.tokenValid else { return nil }
        return .unregistered
    }

    private mutating func sendToDevice(
        _ id: DeviceID, request: SendRequest, project: Project, canonical: String?, ttlZero: Bool
    ) throws(FCMError) -> SendOutcome {
        let appId = try admitted(id, request: request, project: project)
        if !ttlZero { try checkRate(settings.deviceRateLimit, key: "d:\(id)", code: .deviceMessageRateExceeded) }
        guard !request.validateOnly else { return Self.validated }
        let appHash = IdentifierFactory.appHash(project.id, appId)
        let message = Message(
            id: ids.tokenMessageId(at: now, appHash: appHash), projectId: project.id, senderId: project.number,
            target: request.target, content: request.content, api: request.api, acceptedAt: now, retry: request.retry
        )
        log(.accepted, device: id, message: message, detail: request.acceptedDetail)
        dispatch(message, to: id)
        return SendOutcome(message: message, messageId: message.id, canonicalToken: canonical, groupSuccess: 1, groupFailedTokens: [])
    }

    /// The checks a send to one device makes of the device, and its app id. The device's fields
    /// are read in place: a copy retains every field, and one still alive at `dispatch` would make
    /// the inbox's append copy the whole inbox (an inbox is a `Deque`, and a live copy shares it).
    private mutating func admitted(_ id: DeviceID, request: SendRequest, project: Project) throws(FCMError) -> String {
        let (now, days) = (now, settings.staleTokenDays)
        guard id >= 0, Int(id) < devices.count,
            let (projectIndex, extraSenders, platform, appId, expired) = devices[Int(id)]?.peek({
                ($0.projectIndex, $0.extraSenders, $0.platform, $0.appId, $0.isExpired(now: now, staleTokenDays: days))
            })
        else { throw FCMError(.notFound, "No device \(id)", field: "device") }
        try checkSender(projectIndex: projectIndex, extraSenders: extraSenders, project: project)
        if expired { throw FCMError(.unregistered, "Requested entity was not found.", field: "message.token") }
        if let restricted = request.content.android?.restrictedPackageName ?? request.content.restrictedPackageName,
            platform == .android, restricted != appId
        {
            throw FCMError(
                .invalidPackageName, "restricted_package_name '\(restricted)' does not match the app",
                field: request.content.android?.v2 == nil ? "message.android.restricted_package_name" : "message.android_v2.restricted_package_name")
        }
        return appId
    }

    func checkSender(_ device: Device, project: Project) throws(FCMError) {
        try checkSender(projectIndex: device.projectIndex, extraSenders: device.extraSenders, project: project)
    }

    private func checkSender(projectIndex: Int32, extraSenders: [String], project: Project) throws(FCMError) {
        guard let ownerNumber = projects[Int(projectIndex)]?.project.number else {
            throw FCMError(.unregistered, "Requested entity was not found.", field: "message.token")
        }
        guard ownerNumber == project.number || extraSenders.contains(project.number) else {
            throw FCMError(.senderIdMismatch, "SenderId mismatch", field: "message.token")
        }
    }

    private mutating func fanOut(_ request: SendRequest, project: Project, recipients: [DeviceID]) -> SendOutcome {
        // An expired token's topic subscriptions expire with it ("the stale tokens and topic
        // subscriptions ... will be considered as expired", docs/simulation.md, "Expired tokens").
        let recipients = recipients.filter { id in isExpired(id) == false }
        let message = Message(
            id: ids.topicMessageId(), projectId: project.id, senderId: project.number,
            target: request.target, content: request.content, api: request.api, acceptedAt: now, retry: request.retry
        )
        log(.accepted, message: message, detail: request.acceptedDetail)
        let restricted = request.content.android?.restrictedPackageName ?? request.content.restrictedPackageName
        // The first chunk now; the rest as the emulator continues the fan-out (FanOut.swift).
        fanOuts.append(FanOut(message: message, recipients: recipients, restricted: restricted))
        _ = continueFanOuts()
        return SendOutcome(
            message: message, messageId: message.id, canonicalToken: nil, groupSuccess: recipients.count, groupFailedTokens: [])
    }

    /// Devices of a project that match a condition. When the condition holds for an instance with
    /// no topics (`!('a' in topics)`), every device of the project is a candidate.
    private func matching(_ condition: TopicCondition, in state: ProjectState) -> [DeviceID] {
        let candidates: [DeviceID]
        if condition.matches({ _ in false }) {
            candidates = Array(state.devices)
        } else {
            var seen = Set<DeviceID>()
            var ordered: [DeviceID] = []
            for topic in Set(condition.topics).sorted() {
                for id in state.topics[topic] ?? [] where seen.insert(id).inserted { ordered.append(id) }
            }
            candidates = ordered.sorted()
        }
        return candidates.filter { id in
            guard let device = devices[Int(id)] else { return false }
            return condition.matches { device.topics[$0] != nil }
        }
    }

    private mutating func sendToGroup(_ group: DeviceGroup, request: SendRequest, project: Project) throws(FCMError) -> SendOutcome {
        var resolved: [(DeviceID, String)] = []
        var failed: [String] = []
        for token in group.tokens {
            if let (id, _) = try? resolveToken(token), let device = devices[Int(id)], (try? checkSender(device, project: project)) != nil,
                !isExpired(device)
            {
                resolved.append((id, token))
            } else {
                failed.append(token)
            }
        }
        guard !request.validateOnly else { return Self.validated }
        let message = Message(
            id: ids.tokenMessageId(at: now, appHash: IdentifierFactory.appHash(project.id, group.notificationKey)),
            projectId: project.id, senderId: project.number, target: request.target, content: request.content,
            api: request.api, acceptedAt: now, retry: request.retry
        )
        log(.accepted, message: message, detail: request.acceptedDetail)
        var success = 0
        for (id, token) in resolved {
            let wasUninstalled = devices[Int(id)]?.state == .uninstalled
            noteAccepted(message, device: id, group: true)
            dispatch(message, to: id)
            if wasUninstalled { failed.append(token) } else { success += 1 }
        }
        return SendOutcome(message: message, messageId: message.id, canonicalToken: nil, groupSuccess: success, groupFailedTokens: failed)
    }

    /// Fires a matching error rule: the service refuses the message as scripted.
    private mutating func injectFault(for request: SendRequest, project: Project) throws(FCMError) {
        guard faults.coreRuleCount > 0 else { return }
        var tokens: [String] = []
        if case .token(let token) = request.target { tokens = [token] }
        let api = FaultAPI(rawValue: request.api.rawValue) ?? .v1
        let context = FaultContext(api: api, projects: [project.id, project.number], text: request.target.description, tokens: tokens)
        guard let rule = decideFault(context, transport: false), case .error(let code, let retryAfter) = rule.action else { return }
        // Some dialects word an error by the platform of the instance it is about (XMPP nacks).
        let platform = tokens.first.flatMap { deviceID(forToken: $0) }.flatMap { devices[Int($0)]?.platform }
        let reason: FCMError.Reason? =
            switch (code, platform) {
            case (.invalidRegistration, .ios): .apnsRegistration
            case (.thirdPartyAuthError, .web): .webPushCredentials
            default: nil
            }
        var error = FCMError(code, "Injected by fault rule '\(rule.id)'", field: "message", reason: reason, retryAfterSeconds: retryAfter)
        // What APNs would have answered an iOS delivery refused so (the v1 ApnsError detail).
        if platform == .ios {
            error.apnsError =
                switch code {
                case .invalidRegistration: .badDeviceToken
                case .thirdPartyAuthError: .invalidProviderToken
                case .unregistered: .unregistered
                default: nil
                }
        }
        throw error
    }

    /// The first rule of the kind that fires for this call, logged as an event.
    mutating func decideFault(_ context: FaultContext, transport: Bool) -> FaultRule? {
        var random = ids.random
        let rule = faults.decide(context, transport: transport, now: now, deviceTokens: tokensOfDevice, random: &random)
        ids.random = random
        if let rule { logFaultInjected(rule, context: context) }
        return rule
    }

    /// The handshake rule that fires for a new TLS connection, logged as an event with no call.
    mutating func decideHandshakeFault() -> FaultRule? {
        var random = ids.random
        let rule = faults.decideHandshake(now: now, random: &random)
        ids.random = random
        if let rule { logFaultInjected(rule, context: nil) }
        return rule
    }

    /// Every token a device (by id or name, any project) holds or held.
    private func tokensOfDevice(_ reference: String) -> [String] {
        let ids: [DeviceID] = DeviceID(reference).map { [$0] } ?? projects.compactMap { $0?.devicesByName[reference] }
        var tokens: [String] = []
        for id in ids {
            if let device = devices.indices.contains(Int(id)) ? devices[Int(id)] : nil { tokens.append(token(of: device)) }
            tokens.append(contentsOf: retiredTokens.filter { $0.value.device == id }.map(\.key))
        }
        return tokens
    }
}
