// SPDX-License-Identifier: Apache-2.0

/// The caps on what a client can make in the world: projects, devices and fault
/// rules, each a setting. Topics per instance and groups per project are FCM's own limits and keep
/// FCM's errors (`World+Topics`, `World+Groups`).
extension FCMError {
    /// A collection at its cap, naming the setting that raises it.
    static func limitReached(_ what: String, cap: Int, setting: String, field: String? = nil) -> FCMError {
        FCMError(
            .invalidArgument, "The emulator holds \(cap) \(what) already (\(setting)); remove some, or raise it with --set \(setting)=N",
            field: field, reason: .limitReached)
    }

    /// A set of `count` rules to put in force in place of the current ones.
    package static func checkFaultRuleCount(_ count: Int, cap: Int) throws(FCMError) {
        guard count <= cap else {
            throw FCMError(
                .invalidArgument, "At most \(cap) fault rules may be in force (maxFaultRules), not \(count); raise it with --set maxFaultRules=N",
                field: "faults", reason: .limitReached)
        }
    }
}

extension World {
    /// Devices in every project. Read per creation, so it costs one step per project (at most
    /// `maxProjects`), not per device.
    var deviceCount: Int { projects.reduce(0) { $0 + ($1?.devices.count ?? 0) } }

    func checkRoomForDevices(_ count: Int) throws(FCMError) {
        let held = deviceCount
        guard held <= settings.maxDevices - count else {
            throw held >= settings.maxDevices
                ? .limitReached("devices", cap: settings.maxDevices, setting: "maxDevices")
                : FCMError(
                    .invalidArgument,
                    "Only \(settings.maxDevices - held) more devices fit (maxDevices is \(settings.maxDevices)); ask for fewer, or raise maxDevices",
                    field: "count", reason: .limitReached)
        }
    }

    /// Room for one more rule, or for a whole new set of `replacing` rules.
    func checkRoomForFaultRules(replacing: Int? = nil) throws(FCMError) {
        if let replacing { return try FCMError.checkFaultRuleCount(replacing, cap: settings.maxFaultRules) }
        guard faults.rules.count < settings.maxFaultRules else {
            throw .limitReached("fault rules", cap: settings.maxFaultRules, setting: "maxFaultRules", field: "faults")
        }
    }
}
