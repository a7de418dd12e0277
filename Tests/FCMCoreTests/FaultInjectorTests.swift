// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMTesting
import Testing

@Suite("Fault injector: matching and error rules")
struct FaultInjectorTests {
    private func outcomes(_ w: Harness, _ d: DeviceInfo, _ n: Int) -> [FCMError.Code?] {
        (0..<n).map { _ in
            do {
                try w.sendData(d)
                return nil
            } catch let error as FCMError {
                return error.code
            } catch {
                return .internalError
            }
        }
    }

    @Test func nthEveryAndCount() throws {
        let w = Harness()
        let d = try w.device()
        try w.emu.setFaultRules([FaultRule(id: "third", match: .init(nth: 3), action: .error(.unavailable, retryAfterSeconds: 5))])
        #expect(outcomes(w, d, 4) == [nil, nil, .unavailable, nil])
        try w.emu.setFaultRules([
            FaultRule(id: "even", match: .init(every: 2, count: 2), action: .error(.internalError, retryAfterSeconds: nil))
        ])
        #expect(outcomes(w, d, 6) == [nil, .internalError, nil, .internalError, nil, nil])
        #expect(
            try w.emu.events(EventQuery(kinds: [.faultInjected])).map { $0.detail?.split(separator: ":").first.map(String.init) } == [
                "rule third", "rule even", "rule even",
            ])
    }

    @Test func targetDeviceApiAndWindow() throws {
        let w = Harness()
        let a = try w.device(name: "a")
        let b = try w.device(name: "b")
        try w.emu.setFaultRules([
            FaultRule(id: "a-only", match: .init(api: .v1, device: "a"), action: .error(.unregistered, retryAfterSeconds: nil))
        ])
        #expect(outcomes(w, a, 1) == [.unregistered])
        #expect(outcomes(w, b, 1) == [nil])
        let later = Instant.virtualEpoch.adding(seconds: 60)
        try w.emu.setFaultRules([
            FaultRule(
                id: "window", match: .init(from: later, until: later.adding(seconds: 60)),
                action: .error(.unavailable, retryAfterSeconds: nil))
        ])
        #expect(outcomes(w, b, 1) == [nil])
        try w.advance(seconds: 60)
        #expect(outcomes(w, b, 1) == [.unavailable])
        try w.advance(seconds: 60)
        #expect(outcomes(w, b, 1) == [nil])
    }

    @Test func probabilityIsSeeded() throws {
        func run(seed: UInt64) throws -> [FCMError.Code?] {
            let w = Harness { $0.seed = seed }
            let d = try w.device()
            try w.emu.setFaultRules([
                FaultRule(id: "coin", match: .init(probability: 0.5), action: .error(.unavailable, retryAfterSeconds: nil))
            ])
            return outcomes(w, d, 40)
        }
        let first = try run(seed: 9)
        #expect(try run(seed: 9) == first)
        #expect((5...35).contains(first.filter { $0 != nil }.count))
    }

    @Test func injectedErrorsChangeNothing() throws {
        let w = Harness()
        let d = try w.device(state: .offline)
        try w.emu.setFaultRules([FaultRule(id: "down", action: .error(.unavailable, retryAfterSeconds: 10))])
        #expect(throws: FCMError.self) { try w.sendData(d) }
        #expect(try w.info(d).storedCount == 0)
        #expect(try w.events(d, .accepted).isEmpty)
        try w.emu.removeFaultRule(id: "down")
        #expect(w.emu.faultRules().isEmpty)
    }
}
