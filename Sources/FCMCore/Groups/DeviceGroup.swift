// SPDX-License-Identifier: Apache-2.0

/// A device group (legacy notification key): a name, a key and at most 20 registration tokens.
public struct DeviceGroup: Sendable, Equatable {
    public let name: String
    public let notificationKey: String
    public var tokens: [String]
    public let createdAt: Instant
}
