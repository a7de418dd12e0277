// SPDX-License-Identifier: Apache-2.0

import FCMCore
import Logging
import NIOCore
import NIOHTTP1

/// One line per answered request at info, so the logs explain: the API, method, path,
/// status, time taken and project, so a user can see which API their SDK called and what it got.
/// Refused connections and inputs are logged at debug with the reason.
package struct AccessLog: Sendable {
    let logger: Logger

    /// `api`: the API that answered (`HTTPResponse.api`). `refusals`: what an FCM front refused in
    /// the answer; the line then says why.
    func answered(
        api: String, method: String, target: String, status: Int, version: HTTPVersion, since start: NIODeadline,
        refusals: [Refusal] = []
    ) {
        guard logger.logLevel <= .info else { return }
        let path = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
        let millis = Double((NIODeadline.now() - start).nanoseconds) / 1_000_000
        var metadata: Logger.Metadata = [
            // Numbers as numbers: `--log-format json` writes them unquoted for log collectors.
            "api": "\(api)", "method": "\(method)", "path": "\(path)", "status": .stringConvertible(status),
            "http": "\(version.major == 2 ? "2" : "\(version.major).\(version.minor)")",
            "ms": .stringConvertible((millis * 100).rounded() / 100),
        ]
        if let project = Self.project(path) { metadata["project"] = "\(project)" }
        guard let refusal = refusals.first else {
            logger.info("\(method) \(path) \(status)", metadata: metadata)
            return
        }
        // The first refusal of the answer, and how many there were (a multicast's results).
        let reason = Refusal.truncated(refusal.detail)
        metadata["api"] = "\(refusal.api)"
        if let project = refusal.project { metadata["project"] = "\(project)" }
        metadata["code"] = "\(refusal.code)"
        metadata["reason"] = "\(reason)"
        if let target = refusal.target { metadata["target"] = "\(Refusal.truncated(target))" }
        if refusals.count > 1 { metadata["refused"] = .stringConvertible(refusals.count) }
        logger.info("\(method) \(path) \(status) refused: \(refusal.code): \(reason)", metadata: metadata)
    }

    func refused(_ reason: String, metadata: Logger.Metadata = [:]) {
        logger.debug("refused: \(reason)", metadata: metadata)
    }

    /// The project a path names (`/v1/projects/{p}/…`, `/emulator/v1/projects/{p}/…`), if any.
    package static func project(_ path: String) -> Substring? {
        guard let range = path.firstRange(of: "/projects/") else { return nil }
        let rest = path[range.upperBound...]
        return rest.split(separator: "/", maxSplits: 1).first.map { $0.split(separator: ":").first ?? $0 }
    }
}
