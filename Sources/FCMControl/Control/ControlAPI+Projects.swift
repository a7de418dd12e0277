// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport

/// `/emulator/v1/projects`: projects (at most `maxProjects`), their service accounts, topics,
/// groups and events.
extension ControlAPI {
    // MARK: - Projects

    func registerProjects(into router: inout Router) {
        let p = Self.prefix
        router.add(
            "GET", "\(p)/projects",
            handle { request, _ throws(FCMError) in
                let (offset, limit) = try Self.pageQuery(request, defaultLimit: Self.pageLimits.upperBound)
                return Self.pageResponse(
                    "projects", emulator.projects(offset: offset, limit: limit, maxBytes: Self.maxAnswerBytes), ControlJSON.project)
            })
        router.add(
            "POST", "\(p)/projects",
            handle { request, _ throws(FCMError) in
                let body = try ControlBody(request, allowed: ["id", "number", "serverKeys", "apiEnabled"])
                guard let id = try body.string("id") else { throw FCMError(.invalidArgument, "Field 'id' is required", field: "id") }
                let apiEnabled = try body.bool("apiEnabled")
                var project = try emulator.createProject(
                    id: id, number: try body.string("number"), serverKeys: try body.strings("serverKeys") ?? [])
                if let apiEnabled { project = try emulator.setAPIEnabled(apiEnabled, projectId: project.id) }
                return ControlJSON.response(status: 201, ControlJSON.project(project))
            })
        router.add(
            "GET", "\(p)/projects/{project}",
            handle { _, params throws(FCMError) in
                ControlJSON.response(ControlJSON.project(try emulator.project(try params.require("project"))))
            })
        router.add(
            "PATCH", "\(p)/projects/{project}",
            handle { request, params throws(FCMError) in
                // What a project's console settings change: whether its FCM API is enabled.
                let body = try ControlBody(request, allowed: ["apiEnabled"])
                var project = try emulator.project(try params.require("project"))
                if let enabled = try body.bool("apiEnabled") { project = try emulator.setAPIEnabled(enabled, projectId: project.id) }
                return ControlJSON.response(ControlJSON.project(project))
            })
        router.add(
            "DELETE", "\(p)/projects/{project}",
            handle { _, params throws(FCMError) in
                try emulator.deleteProject(id: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "POST", "\(p)/projects/{project}:reset",
            handle { _, params throws(FCMError) in
                try emulator.reset(projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/serviceAccount",
            handle { request, params throws(FCMError) in
                try serviceAccount(request, project: try emulator.project(try params.require("project")))
            })
        router.add(
            "POST", "\(p)/projects/{project}/accessTokens",
            handle { _, params throws(FCMError) in
                // What the token endpoint would grant the project's service account, without the
                // JWT dance: for the dashboard's send form and for harnesses that speak raw HTTP.
                let project = try emulator.project(try params.require("project"))
                let grant = grants.issue(projectId: project.id, scopes: Set(MetadataServer.scopes), via: "control", recordingIn: emulator)
                return ControlJSON.response(
                    status: 201,
                    .object([
                        ("accessToken", .string(grant.token)), ("tokenType", .string("Bearer")),
                        ("expiresIn", .int(AccessGrants.lifetimeSeconds)),
                    ]))
            })
        router.add(
            "POST", "\(p)/projects/{project}/accessTokens:revoke",
            handle { _, params throws(FCMError) in
                // Every token the project's service account was issued until now gets 401 from
                // now on, so an SDK's refresh path runs (docs/http-v1.md, "Revoking access tokens").
                let project = try emulator.project(try params.require("project"))
                grants.revoke(projectId: project.id)
                emulator.recordAccessTokens(.revoked, projectId: project.id, detail: ServiceAccounts.email(project.id))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/xmpp",
            handle { _, params throws(FCMError) in
                let connections = try emulator.ccsConnections(projectId: try params.require("project"))
                return ControlJSON.response(.object([("connections", .array(connections.map(ControlJSON.connection)))]))
            })
        router.add(
            "POST", "\(p)/projects/{project}/xmpp:drain",
            handle { _, params throws(FCMError) in
                try emulator.requestDrain(projectId: try params.require("project"))
                return ControlJSON.response(.object([]))
            })
        router.add(
            "GET", "\(p)/projects/{project}/topics",
            handle { request, params throws(FCMError) in
                let (offset, limit) = try Self.pageQuery(request, defaultLimit: Self.pageLimits.upperBound)
                let page = try emulator.topics(
                    projectId: try params.require("project"), offset: offset, limit: limit, maxBytes: Self.maxAnswerBytes)
                return Self.pageResponse("topics", page) { .object([("name", .string($0.name)), ("subscribers", .int($0.subscribers))]) }
            })
        router.add(
            "GET", "\(p)/projects/{project}/groups",
            handle { request, params throws(FCMError) in
                let (offset, limit) = try Self.pageQuery(request, defaultLimit: Self.pageLimits.upperBound)
                let page = try emulator.groups(
                    projectId: try params.require("project"), offset: offset, limit: limit, maxBytes: Self.maxAnswerBytes)
                return Self.pageResponse("groups", page, ControlJSON.group)
            })
        router.add(
            "GET", "\(p)/events",
            handle { request, _ throws(FCMError) in
                try events(request, projectId: nil, device: nil)
            })
        router.add(
            "GET", "\(p)/projects/{project}/events",
            handle { request, params throws(FCMError) in
                try events(request, projectId: try params.require("project"), device: nil)
            })
    }
}
