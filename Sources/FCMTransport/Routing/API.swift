// SPDX-License-Identifier: Apache-2.0

/// Which API a request calls, as its front declares it when it mounts its paths
/// (`Router.mount`): the name the access log, transport faults and refusal events know it by, and
/// the access policy's plane its requests pass (`AccessPolicy.Plane`). Each front owns its own
/// (`extension API { static let v1 = … }`); the transport knows only `other`.
public struct API: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let plane: AccessPolicy.Plane

    public init(_ name: String, plane: AccessPolicy.Plane = .standIn) {
        self.name = name
        self.plane = plane
    }

    /// A path no front mounted, the root among them.
    public static let other = API("other")

    public var description: String { name }

    /// One API has one name: compared by it alone, as a switch over APIs compares (`~=`).
    public static func == (a: API, b: API) -> Bool { a.name == b.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
