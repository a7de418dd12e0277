// SPDX-License-Identifier: Apache-2.0

// MARK: - Faults

extension Emulator {
    public func faultRules() -> [FaultRule] { withWorld { $0.faults.rules } }

    /// How many rules are in force (for default ids, without copying the rules).
    public var faultRuleCount: Int { withWorld { $0.faults.rules.count } }

    /// Replaces every rule; more than `maxFaultRules` are refused and nothing changes.
    public func setFaultRules(_ rules: [FaultRule]) throws(FCMError) {
        try updateFaults { (w: inout World) throws(FCMError) in
            try w.checkRoomForFaultRules(replacing: rules.count)
            w.faults.set(rules)
        }
    }

    /// Adds a rule, replacing one with the same id; a new rule past `maxFaultRules` is refused.
    public func addFaultRule(_ rule: FaultRule) throws(FCMError) {
        try updateFaults { (w: inout World) throws(FCMError) in
            if !w.faults.contains(id: rule.id) { try w.checkRoomForFaultRules() }
            w.faults.add(rule)
        }
    }

    public func removeFaultRule(id: String) throws(FCMError) {
        guard updateFaults({ $0.faults.remove(id: id) }) else { throw FCMError(.notFound, "No fault rule '\(id)'", field: "id") }
    }

    /// Whether any transport rule is in force (cheap; no lock).
    public var hasTransportFaults: Bool { transportRuleCount.load(ordering: .relaxed) > 0 }

    /// The transport fault to apply to an HTTP call, if a rule fires.
    public func transportFault(_ context: FaultContext) -> FaultRule.Action? {
        withWorld { w in w.decideFault(context, transport: true)?.action }
    }

    /// How long a new TLS connection's handshake waits, when a `slowHandshake` rule fires.
    public func handshakeDelayMillis() -> Int64 {
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
    public func checkRoomForDevices(_ count: Int) throws(FCMError) {
        try withWorld { (w: inout World) throws(FCMError) in try w.checkRoomForDevices(count) }
    }
}
