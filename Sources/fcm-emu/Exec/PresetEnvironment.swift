// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `exec` does with variables the caller's environment already sets.
/// Every variable of the plan is set only where it is not set already, except the CA bundles:
/// a bundle the environment names (as CI images and corporate machines do) is copied with the
/// emulator's CA added, and the variable points at the copy. A preset variable that keeps the SDK
/// from the emulator is said on stderr, one line each, with the fix.
enum PresetEnvironment {
    /// Variables naming a whole bundle of roots, read instead of the system's.
    static let bundleVariables = ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"]
    /// Node's extra certificates, read in addition to its own roots.
    static let extraVariable = "NODE_EXTRA_CA_CERTS"
    static var caVariables: [String] { bundleVariables + [extraVariable] }

    struct Merge {
        /// The CA variables to set over the caller's values.
        var values: [String: String] = [:]
        /// Lines for stderr: what was merged, and what could not be.
        var notes: [String] = []
    }

    /// Copies each bundle named by a preset CA variable into `directory` with `caPEM` appended.
    static func mergeBundles(preset: [String: String], caPEM: String, directory: String) -> Merge {
        var merge = Merge()
        var copies: [String: String] = [:]
        var merged: [String] = []
        for name in caVariables {
            guard let source = preset[name], !source.isEmpty else { continue }
            if let copy = copies[source] {
                merge.values[name] = copy
                merged.append(name)
                continue
            }
            do {
                var bytes = try PrivateFiles.read(source)
                let text = String(decoding: bytes, as: UTF8.self)
                guard text.contains("-----BEGIN CERTIFICATE-----") || name == extraVariable else {
                    throw PrivateFiles.Failure(description: "\(source) holds no PEM certificate")
                }
                if !text.contains(caPEM.trimming()) {
                    if let last = bytes.last, last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
                    bytes += Array(caPEM.utf8)
                }
                let copy = directory + "/ca-merged-\(copies.count + 1).pem"
                try PrivateFiles.write(bytes, to: copy)
                copies[source] = copy
                merge.values[name] = copy
                merged.append(name)
            } catch {
                merge.notes.append(
                    "fcm-emu exec: \(name) names a CA bundle the emulator's CA cannot be added to (\(error)); it is kept, so clients "
                        + "reading it will not trust the emulator: unset it, or point it at a readable PEM file")
            }
        }
        if !merged.isEmpty {
            let sources = Set(merged.compactMap { preset[$0] }).sorted().joined(separator: ", ")
            merge.notes.insert(
                "fcm-emu exec: your \(merged.joined(separator: ", ")) (\(sources)) now name copies with the emulator's CA added, in \(directory)",
                at: 0)
        }
        return merge
    }

    /// Hosts the SDKs call, which the proxy stands in for.
    static let googleHosts = ["fcm.googleapis.com", "oauth2.googleapis.com", "iid.googleapis.com"]

    /// One stderr line for each preset variable the plan would have set otherwise, where keeping
    /// it keeps the command from the emulator.
    static func conflicts(preset: [String: String], plan: [(String, String)], credentials: EnvironmentPlan.Credentials) -> [String] {
        var lines: [String] = []
        var planned = Dictionary(plan, uniquingKeysWith: { first, _ in first })
        if credentials == .metadata { planned["GOOGLE_APPLICATION_CREDENTIALS"] = "" }
        for (name, ours) in planned.sorted(by: { $0.key < $1.key }) where !caVariables.contains(name) {
            guard let theirs = preset[name], theirs != ours else { continue }
            if name.lowercased() == "no_proxy" {
                guard let host = excludedGoogleHost(theirs) else { continue }
                lines.append(
                    "fcm-emu exec: your \(name) (\(shown(theirs))) keeps \(host) from the emulator's proxy, so SDKs reach the real "
                        + "Google: unset it, or take that entry out (env -u \(name) fcm-emu exec …)")
                continue
            }
            let effect = effects[name] ?? "the command sees yours, not this emulator's"
            let fix = ours.isEmpty ? "unset it" : "unset it to get the emulator's (\(shown(ours)))"
            lines.append("fcm-emu exec: your \(name) (\(shown(theirs))) is kept, so \(effect): \(fix), e.g. env -u \(name) fcm-emu exec …")
        }
        return lines
    }

    private static let effects: [String: String] = [
        "HTTPS_PROXY": "SDKs send through that proxy to the real Google, not to the emulator",
        "https_proxy": "SDKs send through that proxy to the real Google, not to the emulator",
        "HTTP_PROXY": "clients that read only it (Ruby's google-api-client) send through that proxy to the real Google",
        "http_proxy": "clients that read only it (Ruby's google-api-client) send through that proxy to the real Google",
        "GOOGLE_APPLICATION_CREDENTIALS": "SDKs sign in with that key file, not one the emulator issued",
        "GCE_METADATA_HOST": "Application Default Credentials ask that metadata server",
        "GCE_METADATA_IP": "Application Default Credentials ask that metadata server",
        "GOOGLE_CLOUD_PROJECT": "SDKs act for that project, not --project's",
        "GCLOUD_PROJECT": "SDKs act for that project, not --project's",
        "FIREBASE_CONFIG": "SDKs act for that project, not --project's",
        "JAVA_TOOL_OPTIONS": "Java clients get neither the emulator's proxy nor its trust store",
    ]

    /// The first of Google's hosts a `NO_PROXY` list sends around the proxy, if any.
    static func excludedGoogleHost(_ list: String) -> String? {
        let entries = list.split(separator: ",").map { $0.trimming().lowercased() }
        for host in googleHosts {
            for entry in entries where !entry.isEmpty {
                var suffix = entry
                if suffix.hasPrefix("*") { suffix.removeFirst() }
                if suffix.hasPrefix(".") { suffix.removeFirst() }
                if entry == "*" || host == suffix || host.hasSuffix("." + suffix) { return host }
            }
        }
        return nil
    }

    private static func shown(_ value: String) -> String { value.count > 80 ? String(value.prefix(77)) + "…" : value }
}
