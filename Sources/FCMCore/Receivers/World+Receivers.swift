// SPDX-License-Identifier: Apache-2.0

/// Registration of real receivers (docs/receivers.md, "Real receivers"): Android check-in, GCM
/// registration, Firebase installations and FCM registrations, as firebase-messaging and the
/// Firebase JS SDK call them. A registration becomes a web device like any other; only its
/// delivery differs (World+ReceiverDelivery).
extension World {
    // MARK: - Check-in (android.clients.google.com/checkin)

    /// A check-in: a new Android id and security token, or the same ones when the client names
    /// them. A pair this emulator never issued (a client that kept its credentials across an
    /// emulator's restart) is taken as given, so a persisted client keeps working; a known id
    /// with another token is refused.
    mutating func checkin(androidId: UInt64?, securityToken: UInt64?) throws(ReceiverRefusal) -> (androidId: UInt64, securityToken: UInt64) {
        if let androidId, let securityToken, androidId != 0 {
            if let known = receivers.checkins[androidId] {
                guard known.securityToken == securityToken else { throw .unauthenticated("The security token does not match the Android id") }
                return (androidId, securityToken)
            }
            try roomForCheckin()
            receivers.checkins[androidId] = ReceiverRegistry.Checkin(securityToken: securityToken)
            return (androidId, securityToken)
        }
        try roomForCheckin()
        var id: UInt64 = 0
        // Below 2^63: the client echoes it in the signed int64 `AndroidCheckinRequest.id`.
        while id == 0 || receivers.checkins[id] != nil { id = ids.random.next() >> 1 }
        var token: UInt64 = 0
        while token == 0 { token = ids.random.next() }
        receivers.checkins[id] = ReceiverRegistry.Checkin(securityToken: token)
        return (id, token)
    }

    private func roomForCheckin() throws(ReceiverRefusal) {
        guard receivers.checkins.count < ReceiverRegistry.maxCheckins else {
            throw .exhausted("The emulator keeps at most \(ReceiverRegistry.maxCheckins) check-ins")
        }
    }

    /// Whether `androidId` checked in with `securityToken`.
    func checkinMatches(androidId: UInt64, securityToken: UInt64) -> Bool {
        receivers.checkins[androidId]?.securityToken == securityToken
    }

    // MARK: - GCM registration (/c2dm/register3)

    /// A GCM registration token for an app on a checked-in device; the same token again for the
    /// same app, subtype and sender, as GCM answers a repeated registration.
    mutating func registerGCM(
        androidId: UInt64, securityToken: UInt64, app: String, subtype: String, sender: String
    ) throws(ReceiverRefusal) -> String {
        guard checkinMatches(androidId: androidId, securityToken: securityToken) else {
            throw .unauthenticated("AidLogin names no check-in of this emulator")
        }
        guard !app.isEmpty, app.utf8.count <= 255, subtype.utf8.count <= 512, !sender.isEmpty, sender.utf8.count <= 1024 else {
            throw .invalid("app and sender are required (app ≤ 255 bytes, X-subtype ≤ 512, sender ≤ 1024)", field: nil)
        }
        let held = receivers.checkins[androidId]?.registrations ?? []
        for token in held {
            if let r = receivers.registrations[token], r.app == app, r.subtype == subtype, r.sender == sender { return token }
        }
        guard held.count < ReceiverRegistry.maxRegistrationsPerCheckin else {
            throw .exhausted("A check-in holds at most \(ReceiverRegistry.maxRegistrationsPerCheckin) registrations")
        }
        var token = ""
        // The shape of FCM's (`<11 chars>:APA91b<…>`). firebase-messaging splits register3's
        // answer at `=` and treats any `Error` in it as a failure: neither may appear.
        while token.isEmpty || receivers.registrations[token] != nil || deviceID(forToken: token) != nil || token.contains("Error") {
            token = ids.base64URL(count: 11) + ":APA91b" + ids.base64URL(count: 134)
        }
        receivers.registrations[token] = ReceiverRegistry.Registration(androidId: androidId, app: app, subtype: subtype, sender: sender)
        receivers.checkins[androidId]?.registrations.append(token)
        return token
    }

    // MARK: - Firebase installations (firebaseinstallations.googleapis.com)

    /// Creates (or renews) an installation: its FID as the client made it, a refresh token and an auth token.
    /// A FID is 17 bytes, which the JS SDK writes as 22 characters of base64url
    /// (packages/installations/src/helpers/generate-fid.ts) and firebase-messaging as padded
    /// standard base64; the answer's FID is the former, which every client stores.
    mutating func createInstallation(projectIndex: Int32, fid given: String, appId: String) throws(ReceiverRefusal) -> ReceiverRegistry.Installation {
        guard let bytes = Base64URLCodec.decode(given, maxBytes: 64), bytes.count >= 16 else {
            throw .invalid("Invalid FID: 22 characters of base64url (17 bytes)", field: "fid")
        }
        let fid = String(Base64URLCodec.encode(bytes).prefix(22))
        guard !appId.isEmpty, appId.utf8.count <= 255 else { throw .invalid("appId is required", field: "appId") }
        let key = ReceiverRegistry.InstallationKey(projectIndex: projectIndex, fid: fid)
        if let old = receivers.installations[key] { receivers.installationByAuthToken[old.authToken] = nil }
        guard receivers.installations[key] != nil || receivers.installations.count < ReceiverRegistry.maxInstallations else {
            throw .exhausted("The emulator keeps at most \(ReceiverRegistry.maxInstallations) installations")
        }
        var installation = ReceiverRegistry.Installation(
            projectIndex: projectIndex, fid: fid, appId: appId, refreshToken: "3_" + ids.base64URL(count: 86), authToken: "",
            authExpiresAt: now)
        installation.devices = receivers.installations[key]?.devices ?? []
        issueAuthToken(&installation, key: key)
        receivers.installations[key] = installation
        return installation
    }

    private mutating func issueAuthToken(_ installation: inout ReceiverRegistry.Installation, key: ReceiverRegistry.InstallationKey) {
        receivers.installationByAuthToken[installation.authToken] = nil
        // JWT-shaped, as FIS's are; clients treat it as opaque.
        installation.authToken = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9." + ids.base64URL(count: 180) + "." + ids.base64URL(count: 86)
        installation.authExpiresAt = now.adding(seconds: ReceiverRegistry.authTokenSeconds)
        receivers.installationByAuthToken[installation.authToken] = key
    }

    /// A new auth token for an installation, given its refresh token (`…/authTokens:generate`).
    mutating func generateAuthToken(projectIndex: Int32, fid: String, refreshToken: String) throws(ReceiverRefusal) -> ReceiverRegistry.Installation {
        let key = ReceiverRegistry.InstallationKey(projectIndex: projectIndex, fid: fid)
        guard var installation = receivers.installations[key] else { throw .notFound("Installation '\(fid)' not found") }
        guard installation.refreshToken == refreshToken else { throw .unauthenticated("The refresh token is not this installation's") }
        issueAuthToken(&installation, key: key)
        receivers.installations[key] = installation
        return installation
    }

    /// Deletes an installation and the registrations made through it: their tokens answer
    /// `UNREGISTERED` from now on.
    mutating func deleteInstallation(projectIndex: Int32, fid: String, refreshToken: String) throws(ReceiverRefusal) {
        let key = ReceiverRegistry.InstallationKey(projectIndex: projectIndex, fid: fid)
        guard let installation = receivers.installations[key] else { throw .notFound("Installation '\(fid)' not found") }
        guard installation.refreshToken == refreshToken else { throw .unauthenticated("The refresh token is not this installation's") }
        receivers.installations[key] = nil
        receivers.installationByAuthToken[installation.authToken] = nil
        for device in installation.devices { forgetReceiver(device) }
    }

    /// The installation an auth token belongs to, unexpired and of this project.
    func installation(authToken: String, projectIndex: Int32) throws(ReceiverRefusal) -> ReceiverRegistry.Installation {
        guard let key = receivers.installationByAuthToken[authToken], let installation = receivers.installations[key] else {
            throw .unauthenticated("Request is missing required authentication credential. Expected a valid Firebase Installations auth token.")
        }
        guard installation.authExpiresAt > now else { throw .unauthenticated("The Firebase Installations auth token has expired.") }
        guard key.projectIndex == projectIndex else { throw .unauthenticated("The Firebase Installations auth token is another project's.") }
        return installation
    }

    // MARK: - FCM registrations (fcmregistrations.googleapis.com)

    /// Registers a web receiver for FCM: a web device whose token is a new FCM registration token,
    /// delivered to over its check-in's MCS connection. The same endpoint again gives the same
    /// device and token.
    mutating func createRegistration(projectIndex: Int32, authToken: String, web: WebRegistration) throws(ReceiverRefusal) -> DeviceID {
        let installation = try installation(authToken: authToken, projectIndex: projectIndex)
        guard let registration = receivers.registrations[web.gcmToken] else {
            throw .invalid("web.endpoint must be https://fcm.googleapis.com/fcm/send/<a GCM registration token>", field: "web.endpoint")
        }
        if let existing = registration.device, let device = devices[Int(existing)], device.receiver != nil, device.tokenValid {
            return existing
        }
        let key = ReceiverRegistry.InstallationKey(projectIndex: projectIndex, fid: installation.fid)
        let connected = receivers.checkins[registration.androidId]?.connection != nil
        // The FID names the device when no other device of the project has it.
        let fid = deviceID(forFid: installation.fid, projectIndex: projectIndex) == nil ? installation.fid : nil
        let id: DeviceID
        do {
            id = try createDevice(
                DeviceSpec(platform: .web, appId: installation.appId, fid: fid, state: connected ? .foreground : .offline), projectIndex: projectIndex)
        } catch {
            throw .invalid(error.message, field: error.field)
        }
        devices[Int(id)]?.webPush = nil
        devices[Int(id)]?.receiver = ReceiverLink(
            androidId: registration.androidId, gcmToken: web.gcmToken, category: registration.app, subtype: registration.subtype,
            sender: registration.sender, p256dh: web.p256dh, auth: web.auth, applicationServerKey: web.applicationServerKey)
        receivers.registrations[web.gcmToken]?.device = id
        receivers.installations[key]?.devices.append(id)
        return id
    }

    /// Updates an FCM registration's Web Push keys and endpoint (`PATCH …/registrations/{token}`,
    /// the JS SDK's `requestUpdateToken`): the token stays; the endpoint must name a GCM
    /// registration of the same check-in that no other device holds.
    mutating func updateRegistration(projectIndex: Int32, authToken: String, token: String, web: WebRegistration) throws(ReceiverRefusal) {
        _ = try installation(authToken: authToken, projectIndex: projectIndex)
        guard let id = deviceID(forToken: token), let device = devices[Int(id)], let old = device.receiver, device.projectIndex == projectIndex else {
            throw .notFound("Registration not found")
        }
        guard let registration = receivers.registrations[web.gcmToken], registration.androidId == old.androidId,
            registration.device == nil || registration.device == id
        else {
            throw .invalid("web.endpoint must name a GCM registration of the same device", field: "web.endpoint")
        }
        if web.gcmToken != old.gcmToken { receivers.registrations[old.gcmToken]?.device = nil }
        receivers.registrations[web.gcmToken]?.device = id
        devices[Int(id)]?.receiver = ReceiverLink(
            androidId: old.androidId, gcmToken: web.gcmToken, category: registration.app, subtype: registration.subtype,
            sender: registration.sender, p256dh: web.p256dh, auth: web.auth, applicationServerKey: web.applicationServerKey)
    }

    /// Deletes an FCM registration by its token (`DELETE …/registrations/{token}`).
    mutating func deleteRegistration(projectIndex: Int32, authToken: String, token: String) throws(ReceiverRefusal) {
        _ = try installation(authToken: authToken, projectIndex: projectIndex)
        guard let id = deviceID(forToken: token), let device = devices[Int(id)], device.receiver != nil, device.projectIndex == projectIndex else {
            throw .notFound("Registration not found")
        }
        forgetReceiver(id)
    }

    /// Removes a real receiver's device and what points at it; its token answers `UNREGISTERED`.
    mutating func forgetReceiver(_ id: DeviceID) {
        guard let device = devices[Int(id)] else { return }
        if let link = device.receiver {
            receivers.registrations[link.gcmToken]?.device = nil
            if var checkin = receivers.checkins[link.androidId] {
                checkin.outbox.removeAll { $0.device == id }
                receivers.checkins[link.androidId] = checkin
            }
        }
        removeDevice(id)
    }

    /// The devices a check-in receives for.
    func receiverDevices(androidId: UInt64) -> [DeviceID] {
        (receivers.checkins[androidId]?.registrations ?? []).compactMap { token in
            receivers.registrations[token]?.device.flatMap { devices[Int($0)] == nil ? nil : $0 }
        }
    }
}

/// The web keys an FCM registration carries, decoded.
package struct WebRegistration: Sendable {
    package let gcmToken: String
    package let p256dh: [UInt8]
    package let auth: [UInt8]
    package let applicationServerKey: [UInt8]?

    package init(gcmToken: String, p256dh: [UInt8], auth: [UInt8], applicationServerKey: [UInt8]?) {
        self.gcmToken = gcmToken
        self.p256dh = p256dh
        self.auth = auth
        self.applicationServerKey = applicationServerKey
    }
}
