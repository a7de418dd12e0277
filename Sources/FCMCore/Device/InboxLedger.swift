// SPDX-License-Identifier: Apache-2.0

import DequeModule

/// Every inbox's deliveries together, oldest first across devices, and what they cost: inboxes
/// were bounded per device only (`maxInboxPerDevice`), so 100,000 devices on one topic and 150
/// small sends kept 15 million deliveries, about 1.4 GB, for good. Past `maxInboxBytes` the
/// oldest deliveries of any device go first, and an `inboxTrimmed` event says how many
/// (docs/limits.md), as the event log keeps to `maxEventBytes`.
///
/// A delivery costs its slot here and in its inbox; a message's own bytes are charged once, to
/// the first of a run of deliveries of the same message (a fan-out hands one message object to
/// every recipient). An entry names a device and the delivery's place in that device's inbox
/// (`Device.inboxBase` counts what left its front); entries of deliveries that left otherwise (a
/// device's own cap, a cleared inbox, a deleted device) are skipped when reached, and swept when
/// they outnumber the kept ones.
struct InboxLedger: Sendable {
    struct Entry: Sendable {
        let device: DeviceID
        let ordinal: UInt32
    }

    private var order: Deque<Entry> = []
    /// What the kept deliveries cost (`cost(of:)`).
    private(set) var bytes = 0
    /// Deliveries kept in all inboxes.
    private(set) var kept = 0
    /// Deliveries dropped for bytes and not yet told in an event: a fan-out drops one per
    /// recipient, and one event per world call says how many (`World.logInboxTrimming`).
    var unlogged = 0
    /// The message charged last: the next delivery of the same message is not charged again.
    private var lastCharged: Message?

    static let slotBytes = MemoryLayout<Delivery>.stride + MemoryLayout<Entry>.stride

    static func cost(of delivery: Delivery) -> Int {
        guard delivery.chargesMessage, let message = delivery.message else { return slotBytes }
        return slotBytes + message.approximateBytes
    }

    /// Whether a delivery of `message` about to be kept is the first of its run (and so carries
    /// the message's bytes).
    mutating func charges(_ message: Message?) -> Bool {
        guard let message else { return false }
        if let lastCharged, lastCharged === message { return false }
        lastCharged = message
        return true
    }

    /// `delivery` was appended to `device`'s inbox at `ordinal`.
    mutating func kept(_ delivery: Delivery, device: DeviceID, ordinal: UInt32) {
        order.append(Entry(device: device, ordinal: ordinal))
        bytes += Self.cost(of: delivery)
        kept += 1
    }

    /// Deliveries left an inbox other than through `oldest()`.
    mutating func left(_ deliveries: some Sequence<Delivery>) {
        for delivery in deliveries {
            bytes -= Self.cost(of: delivery)
            kept -= 1
        }
    }

    /// The oldest entry, taken off the ledger; the caller removes its delivery, if still kept.
    mutating func oldest() -> Entry? { order.popFirst() }

    /// Drops the entries of deliveries no longer kept, once they are as many as the kept ones:
    /// amortized over the appends that made them.
    mutating func sweep(isKept: (Entry) -> Bool) {
        guard order.count > 2 * kept + 1024 else { return }
        order = Deque(order.filter(isKept))
    }

    /// The ledger of inboxes as a snapshot restored them: entries in delivery-time order (a
    /// device's own in inbox order), each message charged once.
    static func rebuilt(from devices: [Device?]) -> (ledger: InboxLedger, devices: [Device?]) {
        var all: [(time: Instant, offset: Int, device: DeviceID)] = []
        for case let device? in devices {
            for (offset, delivery) in device.inbox.enumerated() { all.append((delivery.time, offset, device.id)) }
        }
        // Within one instant, a device's deliveries keep their order, and devices take turns: a
        // fan-out reaches every recipient before the next send does, so the next to go is each
        // device's oldest, not one device's every delivery.
        all.sort { ($0.time, $0.offset, $0.device) < ($1.time, $1.offset, $1.device) }
        var devices = devices
        var ledger = InboxLedger()
        var charged: Set<ObjectIdentifier> = []
        for item in all {
            guard var device = devices[Int(item.device)] else { continue }
            let position = device.inbox.index(device.inbox.startIndex, offsetBy: item.offset)
            devices[Int(item.device)] = nil
            device.inbox[position].chargesMessage = device.inbox[position].message.map { charged.insert(ObjectIdentifier($0)).inserted } ?? false
            ledger.kept(device.inbox[position], device: item.device, ordinal: device.inboxBase &+ UInt32(truncatingIfNeeded: item.offset))
            devices[Int(item.device)] = device
        }
        return (ledger, devices)
    }
}

extension World {
    /// Keeps `delivery` in device `id`'s inbox, within the device's cap and all inboxes' bytes.
    mutating func keepInInbox(_ delivery: Delivery, for id: DeviceID) {
        // The device is read and changed in place, through the optional (`Device.peek`): a copy
        // would retain each of its fields, and share the inbox, so that the append would copy it.
        guard let (base, count) = devices[Int(id)]?.peek({ ($0.inboxBase, $0.inbox.count) }) else { return }
        var delivery = delivery
        delivery.chargesMessage = inboxLedger.charges(delivery.message)
        inboxLedger.kept(delivery, device: id, ordinal: base &+ UInt32(truncatingIfNeeded: count))
        devices[Int(id)]?.inbox.append(delivery)
        // Trim in batches (amortised O(1)); readers see only the newest `maxInboxPerDevice`.
        if count + 1 >= 2 * settings.maxInboxPerDevice {
            let extra = count + 1 - settings.maxInboxPerDevice
            if let leaving = devices[Int(id)]?.inbox.prefix(extra) { inboxLedger.left(leaving) }
            devices[Int(id)]?.inbox.removeFirst(extra)
            devices[Int(id)]?.inboxBase &+= UInt32(truncatingIfNeeded: extra)
        }
        keepInboxesToBytes()
    }

    /// Drops the oldest deliveries of all inboxes until they cost no more than `maxInboxBytes`;
    /// the newest delivery stays, however large.
    mutating func keepInboxesToBytes() {
        var dropped = 0
        while inboxLedger.bytes > settings.maxInboxBytes, inboxLedger.kept > 1, let entry = inboxLedger.oldest() {
            guard var device = devices[Int(entry.device)], entry.ordinal == device.inboxBase, let first = device.inbox.first else {
                continue  // it left its inbox already
            }
            devices[Int(entry.device)] = nil
            device.inbox.removeFirst()
            device.inboxBase &+= 1
            devices[Int(entry.device)] = device
            inboxLedger.left(CollectionOfOne(first))
            dropped += 1
        }
        inboxLedger.unlogged += dropped
        inboxLedger.sweep { entry in
            guard let device = devices[Int(entry.device)] else { return false }
            return entry.ordinal &- device.inboxBase < UInt32(truncatingIfNeeded: device.inbox.count)
        }
    }

    /// One `inboxTrimmed` event for the deliveries dropped for bytes during a world call.
    mutating func logInboxTrimming() {
        guard inboxLedger.unlogged > 0 else { return }
        let dropped = inboxLedger.unlogged
        inboxLedger.unlogged = 0
        log(.inboxTrimmed, detail: "\(dropped) oldest deliveries dropped: all inboxes keep to maxInboxBytes (\(settings.maxInboxBytes))")
    }

    /// Empties device `id`'s inbox (a cleared inbox; a deleted device).
    mutating func emptyInbox(of id: DeviceID) {
        guard var device = devices[Int(id)], !device.inbox.isEmpty else { return }
        devices[Int(id)] = nil
        inboxLedger.left(device.inbox)
        device.inboxBase &+= UInt32(truncatingIfNeeded: device.inbox.count)
        device.inbox.removeAll()
        devices[Int(id)] = device
    }
}
