// SPDX-License-Identifier: Apache-2.0

// MARK: - Projects

extension Emulator {
    /// Creates a project; a number and a server key are generated when not given.
    @discardableResult
    public func createProject(id: String, number: String? = nil, serverKeys: [String] = []) throws(FCMError) -> Project {
        try withWorld { (w: inout World) throws(FCMError) -> Project in try w.createProject(id: id, number: number, serverKeys: serverKeys)
        }
    }

    package func projects() -> [Project] { withWorld { $0.projects.compactMap { $0?.project } } }

    /// A project by id or number.
    package func project(_ idOrNumber: String) throws(FCMError) -> Project {
        try withWorld { (w: inout World) throws(FCMError) -> Project in try w.projectState(w.projectIndex(idOrNumber: idOrNumber)).project }
    }

    /// The project that owns a legacy server key.
    package func project(serverKey: String) -> Project? {
        withWorld { w in w.projects.lazy.compactMap { $0?.project }.first { $0.serverKeys.contains(serverKey) } }
    }

    /// Turns a project's Firebase Cloud Messaging API on or off (`Project.apiEnabled`).
    package func setAPIEnabled(_ enabled: Bool, projectId: String) throws(FCMError) -> Project {
        try withWorld { (w: inout World) throws(FCMError) -> Project in
            try w.modifyProject(try w.projectIndex(id: projectId)) { state in
                state.project.apiEnabled = enabled
                return state.project
            }
        }
    }

    package func deleteProject(id: String) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in try w.deleteProject(id: id) }
    }

    /// Empties one project (devices, topics, groups), or with nil everything: all projects but the
    /// demo project go, the event log and timers are cleared, and the clock keeps its time.
    public func reset(projectId: String? = nil) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in
            if let projectId {
                w.clearProject(try w.projectIndex(id: projectId))
                return
            }
            var fresh = World(settings: w.settings, start: w.now)
            // Event sequences go on from where they were, so streams resume cleanly after a reset.
            fresh.events = EventLog(for: w.settings, firstSequence: w.events.nextSequence)
            w.replace(with: fresh)
            _ = try? w.createProject(id: DemoProject.id, number: DemoProject.number, serverKeys: [DemoProject.serverKey])
        }
    }
}

// MARK: - Devices

extension Emulator {
    /// - Parameter topics: false answers with `topics` empty (the caller knows them: the spec's).
    public func createDevice(_ spec: DeviceSpec, projectId: String, topics: Bool = true) throws(FCMError) -> DeviceInfo {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceInfo in
            let id = try w.createDevice(spec, projectIndex: w.projectIndex(id: projectId))
            return w.info(try w.device(id), topics: topics)
        }
    }

    /// A project's devices, oldest first, `offset`/`limit` paged. A page also ends before the
    /// topic names it lists pass `maxTopicBytes` (it holds one device at least), since a device
    /// may hold 2000 names of 900 bytes.
    package func devices(
        projectId: String, offset: Int = 0, limit: Int = .max, maxTopicBytes: Int = .max
    ) throws(FCMError) -> (total: Int, page: [DeviceInfo]) {
        try withWorld { (w: inout World) throws(FCMError) -> (total: Int, page: [DeviceInfo]) in
            let index = try w.projectIndex(id: projectId)
            guard let ids = w.projects[Int(index)]?.devices else { return (0, []) }
            var page: [DeviceInfo] = []
            var bytes = 0
            for id in ids.elements.dropFirst(max(0, offset)).prefix(max(0, limit)) {
                guard let device = w.devices[Int(id)] else { continue }
                bytes += device.topicBytes
                if !page.isEmpty, bytes > maxTopicBytes { break }
                page.append(w.info(device))
            }
            return (ids.count, page)
        }
    }

    /// A device by id, name or token.
    package func device(_ reference: String, projectId: String) throws(FCMError) -> DeviceInfo {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceInfo in
            w.info(try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)))
        }
    }

    /// The device that holds `token` now, in any project.
    package func device(token: String) -> DeviceInfo? {
        withWorld { w in w.deviceID(forToken: token).flatMap { w.devices[Int($0)] }.map { w.info($0) } }
    }

    package func deleteDevice(_ reference: String, projectId: String) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in
            w.removeDevice(try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).id)
        }
    }

    @discardableResult
    package func setState(_ reference: String, projectId: String, to state: DeviceState) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in try w.setState(id, to: state) }
    }

    @discardableResult
    package func uninstall(_ reference: String, projectId: String) throws(FCMError) -> DeviceInfo {
        try setState(reference, projectId: projectId, to: .uninstalled)
    }

    @discardableResult
    package func refreshToken(_ reference: String, projectId: String, newToken: String? = nil) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in
            try w.refreshToken(id, newToken: newToken)
        }
    }

    /// Replaces the other senders allowed to message the device.
    @discardableResult
    package func setSenders(_ reference: String, projectId: String, extra: [String]) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in try w.setSenders(id, extra: extra) }
    }

    /// Changes a device's state and extra senders together: both are checked before either
    /// changes, under one lock, so a refused request changes nothing.
    package func updateDevice(
        _ reference: String, projectId: String, state: DeviceState?, extraSenders: [String]?
    ) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in
            if let extraSenders { try w.checkSenders(extraSenders) }
            if let state { try w.setState(id, to: state) }
            if let extraSenders { try w.setSenders(id, extra: extraSenders) }
        }
    }

    @discardableResult
    package func subscribe(_ reference: String, projectId: String, topic: String) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in
            if let error = w.subscribe(device: id, topic: topic) { throw error }
        }
    }

    @discardableResult
    package func unsubscribe(_ reference: String, projectId: String, topic: String) throws(FCMError) -> DeviceInfo {
        try mutateDevice(reference, projectId: projectId) { (w: inout World, id) throws(FCMError) in
            if let error = w.unsubscribe(device: id, topic: topic) { throw error }
        }
    }

    /// Topic management by a sender (IID): one result per token, in order; nil is success.
    /// A nil sender acts as each token's own project (lax authentication).
    package func manageTopic(_ topic: String, tokens: [String], subscribe: Bool, senderProjectId: String?) throws(FCMError) -> [FCMError?] {
        try withWorld { (w: inout World) throws(FCMError) -> [FCMError?] in
            var project: Project?
            var projectIndex: Int32?
            if let senderProjectId {
                projectIndex = try w.projectIndex(idOrNumber: senderProjectId)
                project = try w.projectState(projectIndex ?? 0).project
            } else {
                // Lax authentication acts as each token's own project: the first known one pays.
                for token in tokens {
                    if let id = w.deviceID(forToken: token), let device = w.devices[Int(id)] {
                        projectIndex = device.projectIndex
                        break
                    }
                }
            }
            if let projectIndex { try w.chargeSubscriptionCall(projectIndex: projectIndex) }
            return tokens.map { token in
                switch w.deviceForTopicManagement(token: token, project: project) {
                case .failure(let error): return error
                case .success(let id): return subscribe ? w.subscribe(device: id, topic: topic) : w.unsubscribe(device: id, topic: topic)
                }
            }
        }
    }

    /// A device's topics with the time of each subscription (IID `addDate`).
    package func subscriptionDates(_ reference: String, projectId: String) throws(FCMError) -> [(topic: String, since: Instant)] {
        try withWorld { (w: inout World) throws(FCMError) -> [(topic: String, since: Instant)] in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            return device.topics.map { ($0.key, $0.value) }.sorted { $0.topic < $1.topic }
        }
    }

    /// What the device's app received, oldest first.
    package func inbox(_ reference: String, projectId: String) throws(FCMError) -> (DeviceInfo, [Delivery]) {
        try withWorld { (w: inout World) throws(FCMError) -> (DeviceInfo, [Delivery]) in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            return (w.info(device), Array(device.inbox.suffix(w.settings.maxInboxPerDevice)))
        }
    }

    /// Empties a device's inbox (what it received), leaving the rest of its state alone.
    package func clearInbox(_ reference: String, projectId: String) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in
            let id = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).id
            w.emptyInbox(of: id)
        }
    }

    private func mutateDevice(
        _ reference: String, projectId: String, _ body: (inout World, DeviceID) throws(FCMError) -> Void
    ) throws(FCMError) -> DeviceInfo {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceInfo in
            let id = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).id
            try body(&w, id)
            return w.info(try w.device(id))
        }
    }
}

// MARK: - Messages, groups, events

extension Emulator {
    /// Accepts a message from the project `projectIdOrNumber` and routes it.
    package func send(_ request: SendRequest, from projectIdOrNumber: String) throws(FCMError) -> SendOutcome {
        guard let outcome = try send(request, from: .project(projectIdOrNumber), admit: { _ in true }) else {
            throw FCMError(.internalError, "The send was not admitted")  // never: everyone is
        }
        return outcome
    }

    /// Accepts a message from `sender` when `admit` lets it in, both in one world call, so nothing
    /// changes between the check and the send. `admit` is the front's
    /// credentials rule: it sees the project the sender names (nil when there is none) and runs
    /// under the lock, so keep it to comparisons. Nil, with nothing changed, when it says no.
    package func send(_ request: SendRequest, from sender: Sender, admit: (_ project: Project?) -> Bool) throws(FCMError) -> SendOutcome? {
        let (outcome, fanningOut) = try withWorld { (w: inout World) throws(FCMError) -> (SendOutcome?, Bool) in
            let found = w.senderProject(sender)
            guard admit(w.project(found)) else { return (nil, false) }
            guard let destination = w.destination(of: request, as: found) else {
                throw FCMError(.notFound, "No device group with this notification key", field: "to")
            }
            return (try w.send(request, to: destination), !w.fanOuts.isEmpty)
        }
        if fanningOut { continueFanOuts() }
        return outcome
    }

    /// A front request's sends in one world call, as `send(_:from:admit:)` makes one: the sender
    /// looked up once, `admit` asked, each request sent in order, and last the legacy
    /// `multicast_id` drawn when `multicastId` asks for it. Nil, with nothing changed, when
    /// `admit` says no.
    package func send(
        _ requests: [SendRequest], from sender: Sender, multicastId: Bool = false, admit: (_ project: Project?) -> Bool = { _ in true }
    ) -> SendAnswer? {
        let (answer, fanningOut) = withWorld { (w: inout World) -> (SendAnswer?, Bool) in
            let found = w.senderProject(sender)
            guard admit(w.project(found)) else { return (nil, false) }
            let items = requests.map { request in
                guard let destination = w.destination(of: request, as: found) else {
                    return SendAnswer.Item(projectId: found.name ?? DemoProject.id, toGroup: false, result: nil)
                }
                let result = Result { () throws(FCMError) -> SendOutcome in try w.send(request, to: destination) }
                return SendAnswer.Item(projectId: destination.projectId, toGroup: destination.groupKey != nil, result: result)
            }
            let id = multicastId && !items.contains(where: \.toGroup) ? w.randomMulticastId() : nil
            return (SendAnswer(senderId: found.id, items: items, multicastId: id), !w.fanOuts.isEmpty)
        }
        if fanningOut { continueFanOuts() }
        return answer
    }

    package func createGroup(name: String, tokens: [String], projectIdOrNumber: String) throws(FCMError) -> DeviceGroup {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceGroup in
            try w.createGroup(name: name, tokens: tokens, projectIndex: w.projectIndex(idOrNumber: projectIdOrNumber))
        }
    }

    /// Adds and removes members; returns nil when the group was deleted because it became empty.
    package func changeGroup(
        key: String, name: String?, add: [String] = [], remove: [String] = [], projectIdOrNumber: String
    ) throws(FCMError) -> DeviceGroup? {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceGroup? in
            try w.changeGroup(key: key, name: name, add: add, remove: remove, projectIndex: w.projectIndex(idOrNumber: projectIdOrNumber))
        }
    }

    package func group(named name: String, projectIdOrNumber: String) throws(FCMError) -> DeviceGroup {
        try withWorld { (w: inout World) throws(FCMError) -> DeviceGroup in
            try w.group(named: name, projectIndex: w.projectIndex(idOrNumber: projectIdOrNumber))
        }
    }

    /// The newest events matching `query` (at most its `limit`) logged before sequence `before`,
    /// oldest first: read a slice of at most `maxScan` events per hold of the world lock, so
    /// health checks and sends go on between the slices of a query that matches little.
    package func events(_ query: EventQuery, before: Int? = nil, maxScan: Int = EventRead.maxScan) throws(FCMError) -> [Event] {
        try read(query, before: before, maxScan: maxScan).matched.reversed()
    }

    func read(_ query: EventQuery, before: Int?, maxScan: Int) throws(FCMError) -> EventRead {
        var read = EventRead(before: before)
        while try withWorld({ (w: inout World) throws(FCMError) -> Bool in try w.advance(&read, matching: query, maxScan: maxScan) }) {}
        return read
    }

    /// Events from sequence `cursor` on that match `query`, a bounded page at a time (streams).
    package func eventPage(
        from cursor: Int, matching query: EventQuery, maxScan: Int = 16_384, maxEvents: Int = 256
    ) throws(FCMError)
        -> EventPage
    {
        try withWorld { (w: inout World) throws(FCMError) -> EventPage in
            try w.eventPage(from: cursor, matching: query, maxScan: maxScan, maxEvents: maxEvents)
        }
    }

    /// The sequence number the next event will get: a stream that starts "now" starts here.
    package var nextEventSequence: Int { withWorld { $0.events.nextSequence } }

    /// A positive 19-digit number from the seeded generator (legacy `multicast_id`).
    package func randomInt64() -> Int64 {
        withWorld { $0.randomMulticastId() }
    }

    /// The project a device belongs to (also after it was deleted).
    package func projectId(ofDevice id: DeviceID) -> String? {
        withWorld { w in w.projectId(ofDevice: id) }
    }
}

// MARK: - XMPP (CCS)

extension Emulator {
    /// A device sends an upstream message; the sender's XMPP connections get it.
    @discardableResult
    package func sendUpstream(
        _ reference: String, projectId: String, data: StringPairs, messageId: String? = nil, ttlSeconds: Int64 = 86_400
    ) throws(FCMError) -> CCSItem {
        try withWorld { (w: inout World) throws(FCMError) -> CCSItem in
            let id = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId)).id
            return try w.sendUpstream(id, data: data, messageId: messageId, ttlSeconds: ttlSeconds)
        }
    }

    /// Registers a bound XMPP connection of a sender (id or number); returns its handle.
    package func ccsConnect(sender: String) throws(FCMError) -> (connection: Int, projectId: String) {
        try withWorld { (w: inout World) throws(FCMError) -> (connection: Int, projectId: String) in
            let project = try w.projectState(w.projectIndex(idOrNumber: sender)).project
            return (w.ccs.connect(project: project.id, sender: project.number, at: w.now), project.id)
        }
    }

    /// The connection sent CONNECTION_DRAINING (shown as draining until it closes).
    package func ccsDraining(_ connection: Int) { withWorld { $0.ccs.markDraining(connection) } }

    /// The project's bound XMPP connections.
    package func ccsConnections(projectId: String) throws(FCMError) -> [CCSConnectionInfo] {
        try withWorld { (w: inout World) throws(FCMError) -> [CCSConnectionInfo] in
            w.ccs.connections(project: try w.projectState(w.projectIndex(idOrNumber: projectId)).project.id)
        }
    }

    /// The connection closed: what it held un-acked is sent again on the next one.
    package func ccsDisconnect(_ connection: Int) {
        withWorld { w in
            let project = w.ccs.project(of: connection)
            w.ccs.disconnect(connection)
            if let project { w.ccsWork.insert(project) }
        }
    }

    /// What the connection should send now (at most 100 un-acked at a time).
    package func ccsTake(_ connection: Int) -> [CCSItem] { withWorld { $0.ccsTake(connection) } }

    /// The app server acked an upstream message or receipt on this connection.
    package func ccsAck(_ connection: Int, messageId: String) -> Bool { withWorld { $0.ccsAck(connection, messageId: messageId) } }

    /// Asks every XMPP connection of the project to drain (CONNECTION_DRAINING).
    package func requestDrain(projectId: String) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in
            let project = try w.projectState(w.projectIndex(idOrNumber: projectId)).project
            w.ccs.requestDrain(project: project.id)
            w.ccsWork.insert(project.id)
        }
    }

    /// How many drains were requested for the project so far.
    package func drainRequests(projectId: String) -> Int { withWorld { $0.ccs.drainRequests[projectId] ?? 0 } }
}
