// SPDX-License-Identifier: Apache-2.0

// MARK: - Faults

extension Emulator {
    package func faultRules() -> [FaultRule] { withWorld { $0.faults.rules } }

    /// How many rules are in force (for default ids, without copying the rules).
    package var faultRuleCount: Int { withWorld { $0.faults.rules.count } }

    /// Replaces every rule; more than `maxFaultRules` are refused and nothing changes.
    package func setFaultRules(_ rules: [FaultRule]) throws(FCMError) {
        try updateFaults { (w: inout World) throws(FCMError) in
            try w.checkRoomForFaultRules(replacing: rules.count)
            w.faults.set(rules)
        }
    }

    /// Adds a rule, replacing one with the same id; a new rule past `maxFaultRules` is refused.
    package func addFaultRule(_ rule: FaultRule) throws(FCMError) {
        try updateFaults { (w: inout World) throws(FCMError) in
            if !w.faults.contains(id: rule.id) { try w.checkRoomForFaultRules() }
            w.faults.add(rule)
        }
    }

    package func removeFaultRule(id: String) throws(FCMError) {
        guard updateFaults({ $0.faults.remove(id: id) }) else { throw FCMError(.notFound, "No fault rule '\(id)'", field: "id") }
    }

    /// Whether any transport rule is in force (cheap; no lock).
    package var hasTransportFaults: Bool { transportRuleCount.load(ordering: .relaxed) > 0 }

    /// The transport fault to apply to an HTTP call, if a rule fires.
    package func transportFault(_ context: FaultContext) -> FaultRule.Action? {
        withWorld { w in w.decideFault(context, transport: true)?.action }
    }

    /// How long a new TLS connection's handshake waits, when a `slowHandshake` rule fires.
    package func handshakeDelayMillis() -> Int64 {
        guard hasTransportFaults else { return 0 }
        return withWorld { w in
            guard case .slowHandshake(let millis) = w.decideHandshakeFault()?.action else { return 0 }
            return millis
        }
    }

    private func updateFaults<R: Sendable, E: Error>(_ body: (inout World) throws(E) -> R) throws(E) -> R {
        try withWorld { (w: inout World) throws(E) -> R in
            let result = try body(&w)
            transportRuleCount.store(w.faults.transportRuleCount, ordering: .relaxed)
            return result
        }
    }
}

// MARK: - Caps

extension Emulator {
    /// Refuses, before any is made, `count` devices that would pass `maxDevices`.
    package func checkRoomForDevices(_ count: Int) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in try w.checkRoomForDevices(count) }
    }
}
