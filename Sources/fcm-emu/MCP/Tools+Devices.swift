// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// Projects and devices, through the control API (docs/control-api.md).
extension EmulatorTool {
    /// The most devices `list_devices` shows; the total says how many there are.
    static let maxListed = 100

    static let createProject = EmulatorTool(
        name: "create_project", description: "Create a Firebase project in the emulator; without id, a new id is made.",
        properties: ["id": ToolSchema.string("Project id, e.g. my-app (lowercase letters, digits, hyphens)")]
    ) { arguments, backend in
        let id = try arguments.string("id") ?? "mcp-" + String(UInt32.random(in: .min ... .max), radix: 16)
        let project = try await backend.call("POST", "\(EmulatorBackend.control)/projects", body: .object([("id", .string(id))]))
        let sender = project["senderId"]?.stringValue ?? project["number"]?.stringValue ?? "?"
        return Output(text: "Created project \(id) (sender id \(sender)).", structured: project)
    }

    static let createDevice = EmulatorTool(
        name: "create_device", description: "Create a simulated device (an app install with a registration token) in a project.",
        properties: [
            "project": ToolSchema.project,
            "platform": ToolSchema.string("android, ios or web", oneOf: ToolArguments.platforms),
            "name": ToolSchema.string("A name to find it by, e.g. pixel"),
            "state": ToolSchema.string("The app's state (default foreground)", oneOf: ToolArguments.states),
            "topics": ToolSchema.strings("Topics to subscribe it to", max: 100),
        ], required: ["project", "platform"]
    ) { arguments, backend in
        let project = try arguments.required("project")
        guard let platform = try arguments.choice("platform", ToolArguments.platforms) else {
            throw ToolFailure("platform is required")
        }
        let body = JSONValue.object(omittingNils: [
            ("platform", .string(platform)), ("name", try arguments.string("name").map(JSONValue.string)),
            ("state", try arguments.choice("state", ToolArguments.states).map(JSONValue.string)),
            ("topics", try arguments.strings("topics", max: 100).map { .array($0.map(JSONValue.string)) }),
        ])
        let device = try await backend.call("POST", "\(EmulatorBackend.projectPath(project))/devices", body: body)
        return Output(text: "Created \(describe(device)).", structured: device)
    }

    static let listDevices = EmulatorTool(
        name: "list_devices", description: "List a project's devices, oldest first: the first \(maxListed) and the total.",
        properties: [
            "project": ToolSchema.project,
            "platform": ToolSchema.string("Only this platform", oneOf: ToolArguments.platforms),
            "state": ToolSchema.string("Only devices in this state", oneOf: ToolArguments.states),
            "search": ToolSchema.string("Only devices whose id, name, token or FID contains this"),
        ], required: ["project"]
    ) { arguments, backend in
        let project = try arguments.required("project")
        let query = EmulatorBackend.query([
            ("limit", String(maxListed)), ("platform", try arguments.choice("platform", ToolArguments.platforms)),
            ("state", try arguments.choice("state", ToolArguments.states)), ("q", try arguments.string("search")),
        ])
        let page = try await backend.call("GET", "\(EmulatorBackend.projectPath(project))/devices\(query)")
        let devices = page["devices"]?.arrayValue ?? []
        let total = page["total"]?.int64Value.map(Int.init) ?? devices.count
        let head = devices.count < total ? "showing \(devices.count) of \(total) devices" : "\(total) device\(total == 1 ? "" : "s")"
        let lines = devices.map { "- " + describe($0) }
        return Output(
            text: ([head + " in \(project)"] + lines).joined(separator: "\n"),
            structured: .object([("total", .int(total)), ("shown", .int(devices.count)), ("devices", .array(devices))]))
    }

    static let setDeviceState = EmulatorTool(
        name: "set_device_state",
        description: "Put a device's app in a state: foreground, background, doze (Android idle: normal priority waits), "
            + "offline (messages are stored until it comes back) or uninstalled (its token becomes unregistered).",
        properties: [
            "project": ToolSchema.project, "device": ToolSchema.device,
            "state": ToolSchema.string("The new state", oneOf: ToolArguments.states),
        ],
        required: ["project", "device", "state"]
    ) { arguments, backend in
        let (project, device) = (try arguments.required("project"), try arguments.required("device"))
        guard let state = try arguments.choice("state", ToolArguments.states) else { throw ToolFailure("state is required") }
        let answer = try await backend.call(
            "PATCH", EmulatorBackend.devicePath(project, device), body: .object([("state", .string(state))]))
        return Output(text: "Now \(describe(answer)).", structured: answer)
    }

    /// "device 1002 (pixel) android, foreground, token abc…", one line.
    static func describe(_ device: JSONValue) -> String {
        let id = device["id"]?.stringValue ?? "?"
        let name = device["name"]?.stringValue.map { " (\($0))" } ?? ""
        let platform = device["platform"]?.stringValue ?? "?"
        let state = device["state"]?.stringValue ?? "?"
        let token = device["token"]?.stringValue ?? "?"
        return "device \(id)\(name) \(platform), \(state), token \(token)"
    }
}
