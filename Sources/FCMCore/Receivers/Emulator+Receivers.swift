// SPDX-License-Identifier: Apache-2.0

/// Real receivers (docs/receivers.md, "Real receivers"): what the registration fronts and the
/// MCS server call. Each call is one short hold of the world's lock.
extension Emulator {
    package struct Checkin: Sendable {
        package let androidId: UInt64
        package let securityToken: UInt64
        package let now: Instant
    }

    package func checkin(androidId: UInt64?, securityToken: UInt64?) throws(ReceiverRefusal) -> Checkin {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> Checkin in
            let (id, token) = try w.checkin(androidId: androidId, securityToken: securityToken)
            return Checkin(androidId: id, securityToken: token, now: w.now)
        }
    }

    package func registerGCM(androidId: UInt64, securityToken: UInt64, app: String, subtype: String, sender: String) throws(ReceiverRefusal) -> String {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> String in
            try w.registerGCM(androidId: androidId, securityToken: securityToken, app: app, subtype: subtype, sender: sender)
        }
    }

    /// An installation as the FIS answers show it.
    package struct Installation: Sendable {
        package let projectNumber: String
        package let fid: String
        package let refreshToken: String
        package let authToken: String
        package let expiresInSeconds: Int64
    }

    package func createInstallation(project: String, fid: String, appId: String) throws(ReceiverRefusal) -> Installation {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> Installation in
            let index = try w.receiverProject(project)
            return w.view(try w.createInstallation(projectIndex: index, fid: fid, appId: appId))
        }
    }

    package func generateAuthToken(project: String, fid: String, refreshToken: String) throws(ReceiverRefusal) -> Installation {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> Installation in
            let index = try w.receiverProject(project)
            return w.view(try w.generateAuthToken(projectIndex: index, fid: fid, refreshToken: refreshToken))
        }
    }

    package func deleteInstallation(project: String, fid: String, refreshToken: String) throws(ReceiverRefusal) {
        try withWorld { (w: inout World) throws(ReceiverRefusal) in
            try w.deleteInstallation(projectIndex: try w.receiverProject(project), fid: fid, refreshToken: refreshToken)
        }
    }

    /// A new FCM registration: the device's registration token.
    package func createRegistration(project: String, authToken: String, web: WebRegistration) throws(ReceiverRefusal) -> (token: String, projectId: String) {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> (token: String, projectId: String) in
            let index = try w.receiverProject(project)
            let id = try w.createRegistration(projectIndex: index, authToken: authToken, web: web)
            return (w.devices[Int(id)].map { w.token(of: $0) } ?? "", w.projects[Int(index)]?.project.id ?? project)
        }
    }

    package func updateRegistration(project: String, authToken: String, token: String, web: WebRegistration) throws(ReceiverRefusal) {
        try withWorld { (w: inout World) throws(ReceiverRefusal) in
            try w.updateRegistration(projectIndex: try w.receiverProject(project), authToken: authToken, token: token, web: web)
        }
    }

    package func deleteRegistration(project: String, authToken: String, token: String) throws(ReceiverRefusal) {
        try withWorld { (w: inout World) throws(ReceiverRefusal) in
            try w.deleteRegistration(projectIndex: try w.receiverProject(project), authToken: authToken, token: token)
        }
    }

    // MARK: - MCS

    package func receiverLogin(androidId: UInt64, securityToken: UInt64, received: [String]) throws(ReceiverRefusal) -> UInt64 {
        try withWorld { (w: inout World) throws(ReceiverRefusal) -> UInt64 in
            try w.receiverLogin(androidId: androidId, securityToken: securityToken, received: received)
        }
    }

    /// What the connection writes now; nil: it must close.
    package func receiverOutgoing(androidId: UInt64, connection: UInt64) -> [ReceiverDelivery]? {
        withWorld { $0.receiverOutgoing(androidId: androidId, connection: connection) }
    }

    package func acknowledge(androidId: UInt64, ids: [String]) {
        withWorld { $0.acknowledge(androidId: androidId, ids: ids) }
    }

    package func receiverDisconnected(androidId: UInt64, connection: UInt64) {
        withWorld { $0.receiverDisconnected(androidId: androidId, connection: connection) }
    }
}

extension World {
    /// A project named in a receiver API's URL, by id or number.
    func receiverProject(_ name: String) throws(ReceiverRefusal) -> Int32 {
        if let index = projectIndexById[name] ?? projectIndexByNumber[name] { return index }
        throw .notFound("Project '\(String(name.prefix(100)))' not found")
    }

    func view(_ installation: ReceiverRegistry.Installation) -> Emulator.Installation {
        Emulator.Installation(
            projectNumber: projects[Int(installation.projectIndex)]?.project.number ?? "", fid: installation.fid,
            refreshToken: installation.refreshToken, authToken: installation.authToken,
            expiresInSeconds: max(0, installation.authExpiresAt.millis(since: now) / 1000))
    }
}
