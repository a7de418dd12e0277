// SPDX-License-Identifier: Apache-2.0

import FCMJSON

/// A tool as the server lists it and runs it. `run` throws `ToolFailure` for what the agent
/// should read as a failed call (isError); the text is what a model reads, the structured
/// content what a program does.
struct EmulatorTool: Sendable {
    struct Output {
        let text: String
        var structured: JSONValue?
    }

    let name: String
    let description: String
    let inputSchema: JSONValue
    let run: @Sendable (ToolArguments, EmulatorBackend) async throws -> Output

    /// A tool taking `properties`; an argument it does not name is refused before `run`.
    init(
        name: String, description: String, properties: KeyValuePairs<String, JSONValue>, required: [String] = [],
        run: @escaping @Sendable (ToolArguments, EmulatorBackend) async throws -> Output
    ) {
        self.name = name
        self.description = description
        inputSchema = ToolSchema.object(properties, required: required)
        let known = properties.map(\.key)
        self.run = { arguments, backend in
            try arguments.refuseUnknown(known)
            return try await run(arguments, backend)
        }
    }

    /// As `tools/list` lists it (the MCP specification, 2025-06-18, "Tools", "Tool").
    var listed: JSONValue {
        .object([("name", .string(name)), ("description", .string(description)), ("inputSchema", inputSchema)])
    }
}

/// JSON Schema pieces for the tools' `inputSchema` (the MCP specification, 2025-06-18, "Tools":
/// an object schema).
enum ToolSchema {
    static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String] = []) -> JSONValue {
        .object([
            ("type", .string("object")), ("properties", .object(properties.map { ($0.key, $0.value) })),
            ("required", .array(required.map(JSONValue.string))), ("additionalProperties", .bool(false)),
        ])
    }

    static func string(_ description: String, oneOf values: [String]? = nil) -> JSONValue {
        .object(omittingNils: [
            ("type", .string("string")), ("description", .string(description)), ("maxLength", .int(ToolArguments.maxString)),
            ("enum", values.map { .array($0.map(JSONValue.string)) }),
        ])
    }

    static func integer(_ description: String, _ range: ClosedRange<Int>) -> JSONValue {
        .object([
            ("type", .string("integer")), ("description", .string(description)), ("minimum", .int(range.lowerBound)),
            ("maximum", .int(range.upperBound)),
        ])
    }

    static func strings(_ description: String, max: Int) -> JSONValue {
        .object([
            ("type", .string("array")), ("items", .object([("type", .string("string"))])), ("maxItems", .int(max)),
            ("description", .string(description)),
        ])
    }

    static func boolean(_ description: String) -> JSONValue {
        .object([("type", .string("boolean")), ("description", .string(description))])
    }

    static func anyObject(_ description: String) -> JSONValue {
        .object([("type", .string("object")), ("description", .string(description))])
    }

    static let project = string("The project id, as create_project answered (e.g. demo-fcm-emu)")
    static let device = string("The device: its id, its name, its FID or a token it holds or held")
}
