// SPDX-License-Identifier: Apache-2.0

/// A page of a list the control API answers with: the entries from an offset, and how many there
/// are in all. A page ends early once its entries pass a byte budget, so no list (100,000 topics of
/// up to 900 bytes, 10,000 groups of 20 tokens of up to 4 KiB: about 800 MB) is built whole;
/// `nextOffset` says where the next page starts.
package struct ListPage<Element: Sendable>: Sendable {
    package let total: Int
    package let offset: Int
    package let items: [Element]

    /// What an entry's JSON adds to its text (field names, quotes, indentation), counted so that a
    /// page of a hundred thousand one-letter topics is bounded too.
    static var entryBytes: Int { 64 }

    /// Where the next page starts, or nil after the last.
    package var nextOffset: Int? { offset + items.count < total ? offset + items.count : nil }

    /// The entries of `all` from `offset`, at most `limit`, ending before the entry that would take
    /// the page past `maxBytes` (as `bytes` counts them); a page holds at least one entry.
    init(_ all: ArraySlice<Element>, total: Int, offset: Int, limit: Int, maxBytes: Int, bytes: (Element) -> Int) {
        self.total = total
        self.offset = max(0, offset)
        var items: [Element] = []
        var used = 0
        for element in all.prefix(max(0, limit)) {
            used += bytes(element)
            if !items.isEmpty, used > maxBytes { break }
            items.append(element)
        }
        self.items = items
    }
}

extension Emulator {
    /// The projects, oldest first. Only the small `Project` values are copied under the lock (at
    /// most `maxProjects`); the page is cut outside it.
    package func projects(offset: Int, limit: Int, maxBytes: Int) -> ListPage<Project> {
        let all = projects()
        return ListPage(all.dropFirst(max(0, offset)), total: all.count, offset: offset, limit: limit, maxBytes: maxBytes) { p in
            p.serverKeys.reduce(ListPage<Project>.entryBytes + p.id.utf8.count + p.number.utf8.count) { $0 + $1.utf8.count + 8 }
        }
    }

    /// Topics of a project with their subscriber counts, by name. Under the lock each topic's name
    /// and count are copied (no sorting, and no reference to the topic table is kept, which would
    /// make the next subscription copy the table and its member set under the lock); sorting and
    /// cutting the page happen outside it.
    package func topics(
        projectId: String, offset: Int = 0, limit: Int = .max, maxBytes: Int = .max
    ) throws(FCMError) -> ListPage<TopicSummary> {
        var all = try withWorld { (w: inout World) throws(FCMError) -> [TopicSummary] in
            let index = try w.projectIndex(id: projectId)
            guard let topics = w.projects[Int(index)]?.topics else { return [] }
            var out: [TopicSummary] = []
            out.reserveCapacity(topics.count)
            for (name, members) in topics { out.append(TopicSummary(name: name, subscribers: members.count)) }
            return out
        }
        all.sort { $0.name < $1.name }
        return ListPage(all.dropFirst(max(0, offset)), total: all.count, offset: offset, limit: limit, maxBytes: maxBytes) {
            ListPage<TopicSummary>.entryBytes + $0.name.utf8.count
        }
    }

    /// A project's device groups, oldest first (then by name). The groups are copied under the
    /// lock (their token lists are shared, not copied: at most `maxGroupMembers` each); sorting and
    /// cutting the page happen outside it.
    package func groups(
        projectId: String, offset: Int = 0, limit: Int = .max, maxBytes: Int = .max
    ) throws(FCMError) -> ListPage<DeviceGroup> {
        var all = try withWorld { (w: inout World) throws(FCMError) -> [DeviceGroup] in
            let index = try w.projectIndex(id: projectId)
            return w.projects[Int(index)].map { Array($0.groups.values) } ?? []
        }
        all.sort { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.name < $1.name) }
        return ListPage(all.dropFirst(max(0, offset)), total: all.count, offset: offset, limit: limit, maxBytes: maxBytes) { g in
            g.tokens.reduce(ListPage<DeviceGroup>.entryBytes + g.name.utf8.count + g.notificationKey.utf8.count) { $0 + $1.utf8.count + 8 }
        }
    }
}

/// A topic of a project and how many devices are subscribed to it.
package struct TopicSummary: Sendable, Equatable {
    package let name: String
    package let subscribers: Int
}
