// SPDX-License-Identifier: Apache-2.0

/// A device group (legacy notification key): a name, a key and at most 20 registration tokens.
package struct DeviceGroup: Sendable, Equatable {
    package let name: String
    package let notificationKey: String
    package var tokens: [String]
    package let createdAt: Instant
}
