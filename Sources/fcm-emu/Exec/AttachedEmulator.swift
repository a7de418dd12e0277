// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import FCMSnapshot
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `serve` that `env` and `exec --attach` point SDKs at, through its control API: named by
/// its address or by the `--ready-file` it wrote (docs/configuration.md, "Parallel test harnesses").
struct AttachedEmulator {
    /// The default `serve`'s address (docs/configuration.md).
    static let defaultAddress = "http://127.0.0.1:9092"
    /// The largest ready file read: `serve` writes about 1 KiB.
    static let maxReadyFile = 64 << 10

    let address: String
    let client: ControlClient
    /// Its info document (`GET /emulator/v1/info`), as it answers now, not as a ready file said.
    let info: JSONValue

    /// `target` is an `http://` address, or the path of a ready file naming one (and, beyond loopback,
    /// the control token, used when `FCM_EMU_CONTROL_TOKEN` is not set).
    static func connect(_ target: String) async throws -> AttachedEmulator {
        guard !target.contains("://") else {
            let client = try ControlClient(base: target)
            return AttachedEmulator(address: target, client: client, info: try await Self.info(client, address: target))
        }
        let ready = try readyFile(target)
        var client = try ControlClient(base: ready.address)
        if client.controlToken == nil { client.controlToken = ready.token }
        do {
            return AttachedEmulator(address: ready.address, client: client, info: try await Self.info(client, address: ready.address))
        } catch {
            // `serve` removes its ready file on a clean stop: one left by a killed serve names a dead address.
            throw RuntimeFailure("the ready file \(target) names \(ready.address), which did not answer (a serve that was killed leaves its file): \(error)")
        }
    }

    private static func info(_ client: ControlClient, address: String) async throws -> JSONValue {
        let answer = try await client.get("/emulator/v1/info")
        guard answer.status == 200, let json = try? JSONParser.parse(answer.body), json["http"] != nil else {
            throw RuntimeFailure("\(address)/emulator/v1/info answered \(answer.status), not fcm-emu's info document: \(answer.text.prefix(200))")
        }
        return json
    }

    /// The address and control token a ready file names: a regular file, read up to `maxReadyFile`.
    static func readyFile(_ path: String) throws -> (address: String, token: String?) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw RuntimeFailure(
                "no ready file at \(path) (`fcm-emu serve --ready-file \(path)` writes it once listening); "
                    + "an emulator's address is an http:// URL such as \(defaultAddress)")
        }
        // Not a FIFO or a device, which a read could wait on forever or never finish.
        guard status.st_mode & S_IFMT == S_IFREG, let handle = OwnedFile(readingAt: path) else {
            throw RuntimeFailure("\(path) is not a ready file that can be read (a regular file written by `fcm-emu serve --ready-file`)")
        }
        let data = (try? handle.read(upToCount: maxReadyFile + 1)) ?? []
        guard data.count <= maxReadyFile, let json = try? JSONParser.parse(Array(data)),
            let address = json["http"]?["url"]?.stringValue, address.hasPrefix("http://")
        else {
            throw RuntimeFailure("\(path) is not a ready file of fcm-emu serve (a JSON document of at most \(maxReadyFile) bytes with http.url)")
        }
        return (address, json["controlToken"]?.stringValue)
    }

    /// The emulator's answer to `GET path` as JSON; nil for a 404 when `missingIsNil`, any other
    /// failure thrown with what it answered.
    func fetch(_ path: String, missingIsNil: Bool = false) async throws -> JSONValue? {
        let answer = try await client.get(path)
        if missingIsNil, answer.status == 404 { return nil }
        guard answer.status == 200, let json = try? JSONParser.parse(answer.body) else {
            throw RuntimeFailure("\(address)\(path) answered \(answer.status): \(answer.text)")
        }
        return json
    }

    /// What an SDK sent through this environment would do without the proxy: go to the real Google.
    /// Said as the reason to stop, with the fix (docs/unmodified-apps.md, "fcm-emu env").
    func noProxy(_ who: String, otherwise: String) -> RuntimeFailure {
        RuntimeFailure(
            "\(who): the emulator at \(address) has no HTTPS proxy (serve opens none unless asked), so HTTPS_PROXY cannot point "
                + "at it and an SDK would send to the real Google. Restart it with `fcm-emu serve --set proxyPort=9094` "
                + "(or FCM_EMU_PROXY_PORT=9094; proxyPort=0 picks a free port, named in the ready file), \(otherwise)")
    }

    /// With `--credentials metadata`, the SDK takes its token from the serve's metadata server, which
    /// hands out tokens for one project, its `metadataProject` setting (MetadataServer.swift); a
    /// strict project refuses a token for another, so a different `project` is said, with the fix.
    func metadataMismatch(project: String) async -> String? {
        let answer = try? await client.send("GET", "/computeMetadata/v1/project/project-id", headers: [("Metadata-Flavor", "Google")])
        guard let answer, answer.status == 200, answer.text != project else { return nil }
        return "WARNING: the metadata server of \(address) hands out tokens for \(answer.text) (its metadataProject setting), "
            + "not \(project), which refuses them unless it is lax (demo-…, auth=lax): start that serve with "
            + "--set metadataProject=\(project), or use --credentials key-file"
    }

    /// Makes `project` through the control API when the emulator has none, with the number `exec`
    /// gives it in an emulator of its own.
    func ensureProject(_ project: String, number: String) async throws {
        guard try await fetch("/emulator/v1/projects/\(project)", missingIsNil: true) == nil else { return }
        let body = JSONValue.object([("id", .string(project)), ("number", .string(number))]).encoded()
        let answer = try await client.send("POST", "/emulator/v1/projects", json: Array(body.utf8))
        // 409: made by someone else meanwhile, which is as good.
        guard answer.status == 201 || answer.status == 409 else {
            throw RuntimeFailure("cannot create project '\(project)' on \(address): it answered \(answer.status): \(answer.text)")
        }
    }

    /// The CA bundle, the key file (0600) and, with a JDK, a Java trust store in `directory`, each a
    /// new file renamed into place, and the plan naming them; `say` gets what is left out and why.
    func plan(
        project: String, credentials: EnvironmentPlan.Credentials, in directory: String, info: JSONValue, say: (String) -> Void
    ) async throws -> EnvironmentPlan {
        let bundle = directory + "/ca-bundle.pem"
        if let ca = info["caCertificate"]?.stringValue { try EnvironmentPlan.writeBundle(ca: ca, to: bundle) }
        var keyFile: String?
        if credentials == .keyFile, let account = try await fetch("/emulator/v1/projects/\(project)/serviceAccount") {
            // A new file (0600) renamed into place: a link planted at the name is replaced, not followed.
            keyFile = directory + "/\(project)-service-account.json"
            try PrivateFiles.write(Array(account.encoded(.pretty).utf8), to: directory + "/\(project)-service-account.json", mode: 0o600)
        }
        var plan = EnvironmentPlan(info: info, project: project, credentials: credentials, keyFile: keyFile, bundle: bundle)
        // Only a 404 means the project is missing; any other failure is said, not taken for that.
        if let made = try await fetch("/emulator/v1/projects/\(project)", missingIsNil: true) {
            plan.senderId = made["senderId"]?.stringValue
            plan.serverKey = made["serverKeys"]?.arrayValue?.first?.stringValue
        } else {
            say("no project \(project) on the emulator; FCM_EMU_SENDER_ID and FCM_EMU_SERVER_KEY are left out")
        }
        if let ca = info["caCertificate"]?.stringValue {
            switch JavaTrustStore.write(ca: ca, to: directory + "/truststore.p12") {
            case .made: plan.javaTrustStore = directory + "/truststore.p12"
            case .noJDK: break
            case .failed(let reason):
                say("WARNING: no Java trust store (\(reason)); JAVA_TOOL_OPTIONS names none, so Java clients will not trust the emulator")
            }
        }
        return plan
    }
}
