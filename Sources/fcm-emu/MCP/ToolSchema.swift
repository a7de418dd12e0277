// SPDX-License-Identifier: Apache-2.0

import MCP

/// A tool as the server lists it and runs it. `run` throws `ToolFailure` for what the agent
/// should read as a failed call (isError); the text is what a model reads, the structured
/// content what a program does.
struct EmulatorTool: Sendable {
    struct Output {
        let text: String
        var structured: Value?
    }

    let tool: Tool
    let run: @Sendable (ToolArguments, EmulatorBackend) async throws -> Output

    /// A tool taking `properties`; an argument it does not name is refused before `run`.
    init(
        name: String, description: String, properties: [String: Value], required: [String] = [],
        run: @escaping @Sendable (ToolArguments, EmulatorBackend) async throws -> Output
    ) {
        tool = Tool(name: name, description: description, inputSchema: ToolSchema.object(properties, required: required))
        let known = properties.keys.sorted()
        self.run = { arguments, backend in
            try arguments.refuseUnknown(known)
            return try await run(arguments, backend)
        }
    }
}

/// JSON Schema pieces for the tools' `inputSchema` (the MCP specification, 2025-06-18, "Tools":
/// an object schema).
enum ToolSchema {
    static func object(_ properties: [String: Value], required: [String] = []) -> Value {
        .object([
            "type": "object", "properties": .object(properties), "required": .array(required.map { .string($0) }),
            "additionalProperties": false,
        ])
    }

    static func string(_ description: String, oneOf values: [String]? = nil) -> Value {
        var schema: [String: Value] = ["type": "string", "description": .string(description), "maxLength": .int(ToolArguments.maxString)]
        if let values { schema["enum"] = .array(values.map { .string($0) }) }
        return .object(schema)
    }

    static func integer(_ description: String, _ range: ClosedRange<Int>) -> Value {
        .object([
            "type": "integer", "description": .string(description), "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound),
        ])
    }

    static let project = string("The project id, as create_project answered (e.g. demo-fcm-emu)")
    static let device = string("The device: its id, its name or a token it holds or held")
}
