// SPDX-License-Identifier: Apache-2.0

/// The rules in force and how often each has matched. Part of the world, so it is deterministic
/// under the seed and runs on the emulator's clock.
struct FaultInjector: Sendable {
    private(set) var rules: [FaultRule] = [] {
        didSet { reindex() }
    }
    /// For each kind (transport or not) and API, the positions of the rules that can match such a
    /// call, in order: a call reads only those, not every rule (issue 23, item 7).
    private var candidates: [Candidates: [Int]] = [:]
    /// The positions of the rules that act on TLS handshakes, which no call reads.
    private var handshakeCandidates: [Int] = []
    private(set) var transportRuleCount = 0
    private(set) var coreRuleCount = 0

    private struct Candidates: Hashable {
        let transport: Bool
        let api: FaultAPI
    }
    /// Calls each rule matched and fired for, by rule id; kept in snapshots so `nth`, `every` and
    /// `count` go on counting after an import.
    private(set) var matched: [String: Int] = [:]
    private(set) var fired: [String: Int] = [:]

    init() {}

    init(rules: [FaultRule], matched: [String: Int], fired: [String: Int]) {
        self.rules = rules
        self.matched = matched
        self.fired = fired
        reindex()
    }

    func contains(id: String) -> Bool { rules.contains { $0.id == id } }

    private mutating func reindex() {
        var index: [Candidates: [Int]] = [:]
        handshakeCandidates = []
        for (position, rule) in rules.enumerated() {
            if rule.action.isHandshake {
                handshakeCandidates.append(position)
                continue
            }
            for api in rule.match.api.map({ [$0] }) ?? FaultAPI.allCases {
                index[Candidates(transport: rule.action.isTransport, api: api), default: []].append(position)
            }
        }
        candidates = index
        transportRuleCount = rules.count { $0.action.isTransport }
        coreRuleCount = rules.count - transportRuleCount
    }

    mutating func set(_ rules: [FaultRule]) {
        self.rules = rules
        matched = [:]
        fired = [:]
    }

    mutating func add(_ rule: FaultRule) {
        rules.removeAll { $0.id == rule.id }
        rules.append(rule)
        matched[rule.id] = nil
        fired[rule.id] = nil
    }

    mutating func remove(id: String) -> Bool {
        let before = rules.count
        rules.removeAll { $0.id == id }
        return rules.count != before
    }

    /// The first rule of the given kind that fires for this call, if any.
    mutating func decide(
        _ context: FaultContext, transport: Bool, now: Instant, deviceTokens: (String) -> [String], random: inout SeededRandom
    ) -> FaultRule? {
        for position in candidates[Candidates(transport: transport, api: context.api)] ?? [] {
            let rule = rules[position]
            let m = rule.match
            if let route = m.route, !context.route.contains(route) { continue }
            if let project = m.project, !context.projects.contains(project) { continue }
            if let target = m.target, !context.text.contains(target), !context.tokens.contains(target) { continue }
            if let device = m.device {
                let tokens = deviceTokens(device)
                guard tokens.contains(where: { token in context.tokens.contains(token) || context.text.contains(token) }) else { continue }
            }
            if fires(rule, now: now, random: &random) { return rule }
        }
        return nil
    }

    /// The first handshake rule that fires for a new TLS connection, if any.
    mutating func decideHandshake(now: Instant, random: inout SeededRandom) -> FaultRule? {
        for position in handshakeCandidates where fires(rules[position], now: now, random: &random) {
            return rules[position]
        }
        return nil
    }

    /// The clock window, then the counting fields, then the chance: a rule that matched the call
    /// (or connection) counts it, and fires if they all hold.
    private mutating func fires(_ rule: FaultRule, now: Instant, random: inout SeededRandom) -> Bool {
        let m = rule.match
        if let from = m.from, now < from { return false }
        if let until = m.until, now >= until { return false }
        let n = (matched[rule.id] ?? 0) + 1
        matched[rule.id] = n
        if let nth = m.nth, n != nth { return false }
        if let every = m.every, every > 0, n % every != 0 { return false }
        if let count = m.count, (fired[rule.id] ?? 0) >= count { return false }
        if let probability = m.probability, Double(random.next() >> 11) / Double(1 << 53) >= probability { return false }
        fired[rule.id, default: 0] += 1
        return true
    }
}
