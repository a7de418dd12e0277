// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import FCMCore

/// Paged lists, over seeded random worlds, limits and byte budgets: following
/// `nextOffset` from 0 lists every entry once, in order; no page is empty, holds more than its
/// limit, or passes its byte budget unless it holds a single entry.
@Suite struct ListPagePropertyTests {
    @Test(arguments: 0..<40)
    func followingNextOffsetListsEveryTopicOnceInOrder(_ seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 1)
        let emu = Emulator()
        var names = Set<String>()
        for d in 0..<Int.random(in: 0...3, using: &random) {
            let topics = (0..<Int.random(in: 0...200, using: &random)).map { i in
                "d\(d)-\(i)-" + String(repeating: "t", count: Int.random(in: 0...880, using: &random))
            }
            names.formUnion(topics)
            _ = try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app", topics: topics), projectId: DemoProject.id)
        }
        let limit = Int.random(in: 1...60, using: &random)
        let maxBytes = Int.random(in: 1...40_000, using: &random)
        var listed: [String] = []
        var offset: Int? = 0
        var pages = 0
        while let at = offset {
            let page = try emu.topics(projectId: DemoProject.id, offset: at, limit: limit, maxBytes: maxBytes)
            #expect(page.total == names.count)
            #expect(page.items.count <= limit)
            if page.total > at { #expect(!page.items.isEmpty) }
            let bytes = page.items.reduce(0) { $0 + ListPage<TopicSummary>.entryBytes + $1.name.utf8.count }
            #expect(page.items.count == 1 || bytes <= maxBytes, "page of \(page.items.count) holds \(bytes) bytes, budget \(maxBytes)")
            listed += page.items.map(\.name)
            offset = page.nextOffset
            pages += 1
            guard pages <= names.count + 1 else { break }
        }
        #expect(listed == names.sorted())
    }

    @Test(arguments: 0..<20)
    func followingNextOffsetListsEveryGroupOnce(_ seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 100)
        let emu = Emulator()
        let tokens = try (0..<5).map { _ in
            try emu.createDevice(DeviceSpec(platform: .android, appId: "com.example.app"), projectId: DemoProject.id).token
        }
        var names: [String] = []
        for g in 0..<Int.random(in: 0...80, using: &random) {
            let name = "g\(g)-" + String(repeating: "n", count: Int.random(in: 0...240, using: &random))
            _ = try emu.createGroup(name: name, tokens: Array(tokens.prefix(Int.random(in: 1...5, using: &random))), projectIdOrNumber: DemoProject.id)
            names.append(name)
        }
        let limit = Int.random(in: 1...30, using: &random)
        let maxBytes = Int.random(in: 1...5_000, using: &random)
        var listed: [String] = []
        var offset: Int? = 0
        while let at = offset, listed.count <= names.count {
            let page = try emu.groups(projectId: DemoProject.id, offset: at, limit: limit, maxBytes: maxBytes)
            #expect(page.items.count <= limit)
            if page.total > at { #expect(!page.items.isEmpty) }
            listed += page.items.map(\.name)
            offset = page.nextOffset
        }
        // Made at one instant, so listed by name.
        #expect(listed == names.sorted())
    }
}
