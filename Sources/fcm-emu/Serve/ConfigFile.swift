// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMSnapshot
import FCMYAML
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A YAML (or JSON) file of settings, projects and devices, read strictly: an unknown key or a
/// wrong type is an error that names the file and line.
///
///     port: 9092
///     dozeMaintenanceInterval: 5m
///     projects:
///       - id: my-app
///         number: "1234567890"
///     devices:
///       - {project: my-app, platform: android, name: pixel, state: offline, topics: [news]}
struct ConfigFile {
    /// Setting key, value, and "file:line" for error messages.
    var settings: [(key: String, value: String, origin: String)] = []
    var projects: [ProjectEntry] = []
    var devices: [DeviceEntry] = []

    struct ProjectEntry {
        var id: String
        var number: String?
        var serverKeys: [String]
        var origin: String
    }

    struct DeviceEntry {
        var project: String
        var spec: DeviceSpec
        var origin: String
    }

    static func load(path: String) throws(ConfigError) -> ConfigFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError("cannot read \(path): \(FilePaths.reason(error))")
        }
        let root: YAMLNode?
        do {
            root = try YAMLDocument.compose(text)
        } catch {
            throw ConfigError("\(path) is not valid YAML: \(error)")
        }
        var file = ConfigFile()
        guard let root else { return file }
        guard let mapping = root.mapping else { throw ConfigError("\(path): the top level must be a mapping of settings") }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let origin = "\(path):\(keyNode.line)"
            switch key {
            case "projects":
                for item in try list(value, origin) { file.projects.append(try project(item, path: path)) }
            case "devices":
                guard value.string == nil else {
                    file.settings.append((key, value.string ?? "", origin))
                    continue
                }
                for item in try list(value, origin) { file.devices.append(try device(item, path: path)) }
            default:
                guard Settings.named(key) != nil else {
                    throw ConfigError("\(origin): unknown setting '\(key)'\(Settings.hint(for: key)) (`fcm-emu serve --help` lists them)")
                }
                guard let scalar = value.string else { throw ConfigError("\(origin): '\(key)' takes a single value") }
                file.settings.append((key, scalar, origin))
            }
        }
        return file
    }

    private static func list(_ node: YAMLNode, _ origin: String) throws(ConfigError) -> [YAMLNode] {
        guard let sequence = node.sequence else { throw ConfigError("\(origin): expected a list") }
        return Array(sequence)
    }

    private static func fields(
        _ node: YAMLNode, allowed: Set<String>, path: String
    ) throws(ConfigError) -> (values: [String: YAMLNode], origin: String) {
        let origin = "\(path):\(node.line)"
        guard let mapping = node.mapping else { throw ConfigError("\(origin): expected a mapping") }
        var values: [String: YAMLNode] = [:]
        for (k, v) in mapping {
            let key = k.string ?? ""
            guard allowed.contains(key) else {
                throw ConfigError(
                    "\(path):\(k.line): unknown key '\(key)'; expected one of: \(allowed.sorted().joined(separator: ", "))")
            }
            values[key] = v
        }
        return (values, origin)
    }

    private static func strings(_ node: YAMLNode?, _ origin: String) throws(ConfigError) -> [String] {
        guard let node else { return [] }
        guard let sequence = node.sequence else { throw ConfigError("\(origin): expected a list of strings") }
        var out: [String] = []
        for item in sequence {
            guard let s = item.string else { throw ConfigError("\(origin): expected a list of strings") }
            out.append(s)
        }
        return out
    }

    private static func project(_ node: YAMLNode, path: String) throws(ConfigError) -> ProjectEntry {
        let (v, origin) = try fields(node, allowed: ["id", "number", "serverKeys"], path: path)
        guard let id = v["id"]?.string else { throw ConfigError("\(origin): a project needs an 'id'") }
        return ProjectEntry(id: id, number: v["number"]?.string, serverKeys: try strings(v["serverKeys"], origin), origin: origin)
    }

    private static func device(_ node: YAMLNode, path: String) throws(ConfigError) -> DeviceEntry {
        let allowed: Set<String> = ["project", "platform", "clientSdk", "appId", "name", "token", "fid", "state", "senders", "topics"]
        let (v, origin) = try fields(node, allowed: allowed, path: path)
        guard let platformText = v["platform"]?.string, let platform = Platform(rawValue: platformText) else {
            throw ConfigError("\(origin): a device needs 'platform': android, ios or web")
        }
        var state = DeviceState.foreground
        if let text = v["state"]?.string {
            guard let s = DeviceState(rawValue: text) else {
                throw ConfigError("\(origin): state must be one of \(DeviceState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            state = s
        }
        var spec = DeviceSpec(
            platform: platform, appId: v["appId"]?.string ?? DeviceSpec.defaultAppId(for: platform),
            name: v["name"]?.string, token: v["token"]?.string, fid: v["fid"]?.string,
            state: state, extraSenders: try strings(v["senders"], origin), topics: try strings(v["topics"], origin)
        )
        if let text = v["clientSdk"]?.string {
            guard let sdk = ClientSDK(rawValue: text) else { throw ConfigError("\(origin): clientSdk must be current or legacy") }
            spec.clientSdk = sdk
        }
        return DeviceEntry(project: v["project"]?.string ?? DemoProject.id, spec: spec, origin: origin)
    }

    /// Creates the file's projects and devices.
    func preload(into emulator: Emulator) throws(ConfigError) {
        for entry in projects {
            if let existing = try? emulator.project(entry.id), entry.number == nil || entry.number == existing.number { continue }
            do {
                try emulator.createProject(id: entry.id, number: entry.number, serverKeys: entry.serverKeys)
            } catch {
                throw ConfigError("\(entry.origin): \(error.message)")
            }
        }
        for entry in devices {
            do {
                _ = try emulator.createDevice(entry.spec, projectId: entry.project)
            } catch {
                throw ConfigError("\(entry.origin): \(error.message)")
            }
        }
    }
}
