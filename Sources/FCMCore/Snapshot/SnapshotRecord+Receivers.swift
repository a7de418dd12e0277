// SPDX-License-Identifier: Apache-2.0

extension SnapshotRecord {
    /// The real receivers' registrations (docs/receivers.md, docs/snapshots.md): check-ins, GCM
    /// registrations, installations and each receiver device's link. What an MCS connection was
    /// owed and had not acknowledged is not kept: after an import, nothing is connected.
    package struct Receivers: Sendable {
        package struct Checkin: Sendable {
            package var androidId: UInt64
            package var securityToken: UInt64
            package var registrations: [String]

            package init(androidId: UInt64, securityToken: UInt64, registrations: [String]) {
                self.androidId = androidId
                self.securityToken = securityToken
                self.registrations = registrations
            }
        }

        package struct Registration: Sendable {
            package var gcmToken: String
            package var androidId: UInt64
            package var app: String
            package var subtype: String
            package var sender: String
            package var device: DeviceID?

            package init(gcmToken: String, androidId: UInt64, app: String, subtype: String, sender: String, device: DeviceID?) {
                self.gcmToken = gcmToken
                self.androidId = androidId
                self.app = app
                self.subtype = subtype
                self.sender = sender
                self.device = device
            }
        }

        package struct Installation: Sendable {
            package var projectIndex: Int32
            package var fid: String
            package var appId: String
            package var refreshToken: String
            package var authToken: String
            package var authExpiresAt: Instant
            package var devices: [DeviceID]

            package init(
                projectIndex: Int32, fid: String, appId: String, refreshToken: String, authToken: String, authExpiresAt: Instant,
                devices: [DeviceID]
            ) {
                self.projectIndex = projectIndex
                self.fid = fid
                self.appId = appId
                self.refreshToken = refreshToken
                self.authToken = authToken
                self.authExpiresAt = authExpiresAt
                self.devices = devices
            }
        }

        package struct Link: Sendable {
            package var device: DeviceID
            package var link: ReceiverLink

            package init(device: DeviceID, link: ReceiverLink) {
                self.device = device
                self.link = link
            }
        }

        package var checkins: [Checkin] = []
        package var registrations: [Registration] = []
        package var installations: [Installation] = []
        package var links: [Link] = []
        package var nextPersistentId: UInt64 = 1

        package init() {}

        package var isEmpty: Bool { checkins.isEmpty && registrations.isEmpty && installations.isEmpty && links.isEmpty }
    }
}

extension WorldImage {
    /// The receivers' registrations, sorted (dictionary order differs between runs).
    package var receivers: SnapshotRecord.Receivers {
        let r = world.receivers
        // A receiver's device deleted through the control API leaves its id behind in the
        // registry: only live devices are written.
        let live = { (id: DeviceID) in id >= 0 && Int(id) < world.devices.count && world.devices[Int(id)]?.receiver != nil }
        var out = SnapshotRecord.Receivers()
        out.checkins = r.checkins.sorted { $0.key < $1.key }.map {
            .init(androidId: $0.key, securityToken: $0.value.securityToken, registrations: $0.value.registrations)
        }
        out.registrations = r.registrations.sorted { $0.key < $1.key }.map {
            .init(gcmToken: $0.key, androidId: $0.value.androidId, app: $0.value.app, subtype: $0.value.subtype, sender: $0.value.sender,
                  device: $0.value.device.flatMap { live($0) ? $0 : nil })
        }
        out.installations = r.installations.values.sorted { ($0.projectIndex, $0.fid) < ($1.projectIndex, $1.fid) }.map {
            .init(projectIndex: $0.projectIndex, fid: $0.fid, appId: $0.appId, refreshToken: $0.refreshToken, authToken: $0.authToken,
                  authExpiresAt: $0.authExpiresAt, devices: $0.devices.filter(live))
        }
        out.links = world.devices.compactMap { d in d.flatMap { d in d.receiver.map { .init(device: d.id, link: $0) } } }
        out.nextPersistentId = r.nextPersistentId
        return out
    }
}

extension WorldBuilder {
    /// The receivers' registrations, after the devices: each reference is checked, each collection
    /// kept to its limit (ReceiverRegistry), and every receiver device is offline, since no MCS
    /// connection survives an import.
    package mutating func setReceivers(_ r: SnapshotRecord.Receivers) throws(SnapshotProblem) {
        guard r.checkins.count <= ReceiverRegistry.maxCheckins, r.installations.count <= ReceiverRegistry.maxInstallations,
            r.registrations.count <= ReceiverRegistry.maxCheckins * ReceiverRegistry.maxRegistrationsPerCheckin
        else { throw SnapshotProblem("receivers: more check-ins, registrations or installations than the emulator keeps") }
        var registry = ReceiverRegistry()
        registry.nextPersistentId = r.nextPersistentId
        for c in r.checkins {
            guard registry.checkins[c.androidId] == nil else { throw SnapshotProblem("receivers: check-in \(c.androidId) appears twice") }
            guard c.registrations.count <= ReceiverRegistry.maxRegistrationsPerCheckin else {
                throw SnapshotProblem("receivers: check-in \(c.androidId) holds more than \(ReceiverRegistry.maxRegistrationsPerCheckin) registrations")
            }
            registry.checkins[c.androidId] = ReceiverRegistry.Checkin(securityToken: c.securityToken, registrations: c.registrations)
        }
        for g in r.registrations {
            guard registry.checkins[g.androidId]?.registrations.contains(g.gcmToken) == true else {
                throw SnapshotProblem("receivers: registration \(g.gcmToken.prefix(20))… names no check-in that holds it")
            }
            guard registry.registrations[g.gcmToken] == nil else { throw SnapshotProblem("receivers: a GCM token appears twice") }
            if let device = g.device { try checkReceiverDevice(device) }
            registry.registrations[g.gcmToken] = ReceiverRegistry.Registration(
                androidId: g.androidId, app: g.app, subtype: g.subtype, sender: g.sender, device: g.device)
        }
        for i in r.installations {
            try SnapshotRecord.checkInstant(i.authExpiresAt, "installation authExpiresAt")
            guard world.projects.indices.contains(Int(i.projectIndex)) else { throw SnapshotProblem("receivers: installation of no project") }
            let key = ReceiverRegistry.InstallationKey(projectIndex: i.projectIndex, fid: i.fid)
            guard registry.installations[key] == nil else { throw SnapshotProblem("receivers: installation \(i.fid) appears twice") }
            for device in i.devices { try checkReceiverDevice(device) }
            var installation = ReceiverRegistry.Installation(
                projectIndex: i.projectIndex, fid: i.fid, appId: i.appId, refreshToken: i.refreshToken, authToken: i.authToken,
                authExpiresAt: i.authExpiresAt)
            installation.devices = i.devices
            registry.installations[key] = installation
            registry.installationByAuthToken[i.authToken] = key
        }
        for l in r.links {
            try checkReceiverDevice(l.device)
            guard world.devices[Int(l.device)]?.platform == .web else { throw SnapshotProblem("receivers: device \(l.device) is not a web device") }
            guard registry.registrations[l.link.gcmToken]?.device == l.device else {
                throw SnapshotProblem("receivers: device \(l.device)'s GCM registration does not name it")
            }
            world.devices[Int(l.device)]?.webPush = nil
            world.devices[Int(l.device)]?.receiver = l.link
            if world.devices[Int(l.device)]?.state.isConnected == true { world.devices[Int(l.device)]?.state = .offline }
        }
        world.receivers = registry
    }

    private func checkReceiverDevice(_ id: DeviceID) throws(SnapshotProblem) {
        guard id >= 0, Int(id) < world.devices.count, world.devices[Int(id)] != nil else {
            throw SnapshotProblem("receivers: device \(id) is not a live device of the snapshot")
        }
    }
}
