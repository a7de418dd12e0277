// SPDX-License-Identifier: Apache-2.0

import HeapModule

/// Which devices a device list shows: every filter given must match.
package struct DeviceQuery: Sendable, Equatable {
    /// A part of the token, FID or id, or of the name without regard to ASCII case.
    package let text: String?
    package var platform: Platform?
    package var state: DeviceState?
    /// The text as bytes, for tokens and FIDs (case-sensitive), and folded, for names.
    private let exact: BytePattern
    private let folded: BytePattern
    private let id: DeviceID?

    package init(text: String? = nil, platform: Platform? = nil, state: DeviceState? = nil) {
        let text = text.flatMap { $0.isEmpty ? nil : $0 }
        self.text = text
        self.platform = platform
        self.state = state
        exact = BytePattern(text ?? "", foldingASCIICase: false)
        folded = BytePattern(text ?? "", foldingASCIICase: true)
        id = text.flatMap { DeviceID($0) }.flatMap { String($0) == text ? $0 : nil }
    }

    var isEmpty: Bool { text == nil && platform == nil && state == nil }

    func matches(_ device: Device, in world: World) -> Bool {
        if let platform, device.platform != platform { return false }
        if let state, device.state != state { return false }
        guard text != nil else { return true }
        // Tokens and FIDs are matched as written (they are case-sensitive); names as people type them.
        return exact.occurs(in: world.token(of: device)) || exact.occurs(in: world.fid(of: device)) || (id != nil && device.id == id)
            || (device.name.map(folded.occurs) ?? false)
    }
}

/// A message a device holds now (store and forward), as the control API shows it.
package struct StoredMessageInfo: Sendable {
    package let message: Message
    package let priority: Priority
    package let collapseKey: String?
    /// Not deliverable before this instant (the configured delivery latency).
    package let availableAt: Instant
    /// Dropped at this instant; nil for a TTL 0 copy that only waits out a latency.
    package let expiresAt: Instant?
}

/// A pending timer on the emulator's clock, as the control API shows it.
package struct PendingTimerInfo: Sendable {
    public enum What: String, Sendable {
        /// A stored message reaches the end of its TTL.
        case expiry
        /// A dozing device wakes briefly and takes what waits for it.
        case dozeMaintenance
        /// A message held back by the configured delivery latency becomes deliverable.
        case delivery
    }

    package let at: Instant
    package let what: What
    package let device: DeviceID
    package let projectId: String?
    /// The stored message an expiry is for, while it is still stored.
    package let messageId: String?
}

extension Emulator {
    /// A project's devices that match `query`, oldest first, `offset`/`limit` paged; `total` counts
    /// the matches. A page also ends before the topic names it lists pass `maxTopicBytes`.
    package func devices(
        projectId: String, matching query: DeviceQuery, offset: Int, limit: Int, maxTopicBytes: Int
    ) throws(FCMError) -> (total: Int, page: [DeviceInfo]) {
        if query.isEmpty { return try devices(projectId: projectId, offset: offset, limit: limit, maxTopicBytes: maxTopicBytes) }
        // A slice of the project's devices per hold of the world lock, so a search of 100,000
        // devices never keeps a send or a health check waiting for all of them. Only the page's
        // devices are copied out.
        var search = DeviceSearch(offset: offset, limit: limit, maxTopicBytes: maxTopicBytes)
        while try withWorld({ (w: inout World) throws(FCMError) -> Bool in
            try w.advance(&search, projectId: projectId, matching: query, maxDevices: DeviceSearch.devicesPerHold)
        }) {}
        return (search.total, search.page)
    }

    /// What a device holds now, in the order it would be delivered (acceptance order).
    package func storedMessages(_ reference: String, projectId: String) throws(FCMError) -> (DeviceInfo, [StoredMessageInfo]) {
        try withWorld { (w: inout World) throws(FCMError) -> (DeviceInfo, [StoredMessageInfo]) in
            let device = try w.findDevice(reference, projectIndex: w.projectIndex(id: projectId))
            let stored = (device.store?.items ?? []).map {
                StoredMessageInfo(
                    message: $0.message, priority: $0.profile.priority, collapseKey: $0.profile.collapseKey, availableAt: $0.availableAt,
                    expiresAt: $0.expiresAt)
            }
            return (w.info(device), stored)
        }
    }

    /// The pending timers in the order they will fire, `offset`/`limit` paged (`limit` at most
    /// 100,000 + offset entries are kept while the queue is read, never the whole queue sorted).
    package func pendingTimers(offset: Int, limit: Int) -> (total: Int, page: [PendingTimerInfo]) {
        withWorld { w in
            let keep = max(0, offset) + max(0, limit)
            // The `keep` earliest timers: a max-heap that drops its latest entry once past `keep`.
            var earliest = Heap<TimerQueue.Entry>()
            for entry in w.timers.entries {
                if earliest.count < keep {
                    earliest.insert(entry)
                } else if let latest = earliest.max, entry < latest {
                    _ = earliest.replaceMax(with: entry)
                }
            }
            var ordered: [TimerQueue.Entry] = []
            ordered.reserveCapacity(earliest.count)
            while let entry = earliest.popMin() { ordered.append(entry) }
            let page = ordered.dropFirst(max(0, offset)).map { entry -> PendingTimerInfo in
                let device: DeviceID
                let what: PendingTimerInfo.What
                var messageId: String?
                switch entry.action {
                case .expire(let d, let sequence):
                    device = d
                    what = .expiry
                    messageId = w.devices[Int(d)]?.store?.items.first { $0.storeSequence == sequence }?.message.id
                case .dozeMaintenance(let d, _):
                    device = d
                    what = .dozeMaintenance
                case .retryDelivery(let d):
                    device = d
                    what = .delivery
                }
                let projectIndex = Int(device) < w.deviceProjects.count ? Int(w.deviceProjects[Int(device)]) : -1
                let projectId = projectIndex >= 0 && projectIndex < w.projects.count ? w.projects[projectIndex]?.project.id : nil
                return PendingTimerInfo(at: entry.deadline, what: what, device: device, projectId: projectId, messageId: messageId)
            }
            return (w.timers.count, page)
        }
    }
}

/// A device search made a slice at a time (`Emulator.devices(projectId:matching:...)`).
struct DeviceSearch {
    static let devicesPerHold = 4096
    let offset: Int
    let limit: Int
    let maxTopicBytes: Int
    var total = 0
    var page: [DeviceInfo] = []
    var bytes = 0
    var full = false
    /// The last device looked at: the next slice starts after it.
    var last: DeviceID?
}

extension World {
    /// Looks at up to `maxDevices` more of the project's devices; false when all have been.
    func advance(_ search: inout DeviceSearch, projectId: String, matching query: DeviceQuery, maxDevices: Int) throws(FCMError) -> Bool {
        let index = try projectIndex(id: projectId)
        guard let ids = projects[Int(index)]?.devices else { return false }
        var position = ids.startIndex
        if let last = search.last {
            // Devices are listed in the order they were made, ids rising; the last one looked at
            // may have been deleted between two slices.
            position = ids.firstIndex(of: last).map { $0 + 1 } ?? (ids.firstIndex { $0 > last } ?? ids.endIndex)
        }
        let end = min(ids.endIndex, position + max(1, maxDevices))
        for id in ids[position..<end] {
            search.last = id
            guard let device = devices[Int(id)], query.matches(device, in: self) else { continue }
            search.total += 1
            guard search.total > search.offset, !search.full, search.page.count < search.limit else { continue }
            search.bytes += device.topicBytes
            if !search.page.isEmpty, search.bytes > search.maxTopicBytes {
                search.full = true
                continue
            }
            search.page.append(info(device))
        }
        return end < ids.endIndex
    }
}
