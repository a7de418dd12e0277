// SPDX-License-Identifier: Apache-2.0

/// The rules in force and how often each has matched. Part of the world, so it is deterministic
/// under the seed and runs on the emulator's clock.
struct FaultInjector: Sendable {
    private(set) var rules: [FaultRule] = [] {
        didSet { reindex() }
    }
    /// For each kind (transport or not) and API, the positions of the rules that can match such a
    /// call, in order: a call reads only those, not every rule. Rules for one project are kept
    /// apart by project, so a call reads only its own project's (1,000 rules for as many
    /// projects made every send read all of them).
    private var candidates: [Candidates: [Int]] = [:]
    private var candidatesByProject: [Candidates: [String: [Int]]] = [:]
    /// Each rule's `route` and `target` as byte patterns, made once per rule set: the call's text
    /// is searched as bytes, not as `Character`s (`BytePattern`).
    private var patterns: [(route: BytePattern?, target: BytePattern?)] = []
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
        var byProject: [Candidates: [String: [Int]]] = [:]
        handshakeCandidates = []
        for (position, rule) in rules.enumerated() {
            if rule.action.isHandshake {
                handshakeCandidates.append(position)
                continue
            }
            for api in rule.match.api.map({ [$0] }) ?? FaultAPI.allCases {
                let key = Candidates(transport: rule.action.isTransport, api: api)
                if let project = rule.match.project {
                    byProject[key, default: [:]][project, default: []].append(position)
                } else {
                    index[key, default: []].append(position)
                }
            }
        }
        candidates = index
        candidatesByProject = byProject
        patterns = rules.map { rule in
            (rule.match.route.map { BytePattern($0, foldingASCIICase: false) }, rule.match.target.map { BytePattern($0, foldingASCIICase: false) })
        }
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
        let key = Candidates(transport: transport, api: context.api)
        for position in positions(key, projects: context.projects) {
            let rule = rules[position]
            let m = rule.match
            if let route = patterns[position].route, !route.occurs(in: context.route) { continue }
            if let project = m.project, !context.projects.contains(project) { continue }
            if let target = m.target, let pattern = patterns[position].target, !context.tokens.contains(target),
                !pattern.occurs(in: context.text)
            {
                continue
            }
            if let device = m.device {
                let tokens = deviceTokens(device)
                guard tokens.contains(where: { token in context.tokens.contains(token) || context.text.contains(token) }) else { continue }
            }
            if fires(rule, now: now, random: &random) { return rule }
        }
        return nil
    }

    /// The positions of the rules a call of `key` for `projects` may match, in rule order: the
    /// rules for any project, and those for each of the call's projects.
    func positions(transport: Bool, api: FaultAPI, projects: [String]) -> [Int] {
        positions(Candidates(transport: transport, api: api), projects: projects)
    }

    private func positions(_ key: Candidates, projects: [String]) -> [Int] {
        let general = candidates[key] ?? []
        guard let perProject = candidatesByProject[key] else { return general }
        let own = Set(projects).compactMap { perProject[$0] }
        guard !own.isEmpty else { return general }
        return own.reduce(general, +).sorted()
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
