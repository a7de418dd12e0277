// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// "Why didn't it arrive?": a device's outcomes, each message's fate in one line, from
/// `GET /emulator/v1/projects/{p}/devices/{d}/outcomes`.
extension EmulatorTool {
    /// The projects searched for a device when no project is given.
    static let maxProjectsSearched = 100

    static let why = EmulatorTool(
        name: "why",
        description: "Why did (or didn't) messages reach a device: its story, then each message's outcome (delivered, stored, "
            + "expired, collapsed, refused, …) with the reason.",
        properties: [
            "project": ToolSchema.string("The project; without it, the first project that knows the device (ids repeat across projects)"),
            "device": ToolSchema.string("The device: its id, name, token or FID"),
        ], required: ["device"]
    ) { arguments, backend in
        let device = try arguments.required("device")
        let project: String
        if let named = try arguments.string("project") { project = named } else { project = try await findProject(of: device, backend) }
        // The device first, so an unknown one is said as such, not as a missing route.
        _ = try await backend.call("GET", EmulatorBackend.devicePath(project, device))
        let path = EmulatorBackend.devicePath(project, device) + "/outcomes"
        let outcomes: JSONValue
        do {
            outcomes = try await backend.call("GET", path)
        } catch let failure as ToolFailure where failure.message.contains("answered 404") {
            // `--attach` to an fcm-emu older than the outcomes route.
            throw ToolFailure(
                "this emulator has no outcomes route for \(device) (\(failure.message)); it needs a newer fcm-emu", body: failure.body)
        }
        return Output(text: whyText(outcomes), structured: outcomes)
    }

    /// The outcomes answer as text, as `fcm-emu why` prints it (`WhyStory`): the device, the
    /// story, then one line per outcome, newest first.
    static func whyText(_ answer: JSONValue) -> String {
        WhyStory.lines(answer).joined(separator: "\n")
    }

    /// The first project (of at most `maxProjectsSearched`) that knows `device` by id, name or token.
    static func findProject(of device: String, _ backend: EmulatorBackend) async throws -> String {
        let list = try await backend.call("GET", "\(EmulatorBackend.control)/projects?limit=\(maxProjectsSearched)")
        let ids = (list["projects"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        for id in ids {
            if (try? await backend.call("GET", EmulatorBackend.devicePath(id, device))) != nil { return id }
        }
        let searched = ids.count < maxProjectsSearched ? "any of the \(ids.count) projects" : "the first \(maxProjectsSearched) projects"
        throw ToolFailure("no device '\(device)' in \(searched); name its project, or list_devices to find it")
    }
}
