// SPDX-License-Identifier: Apache-2.0

/// A message's fields by name, proto (snake_case) or JSON (lowerCamelCase) spelling. Every key
/// of a v1 body is looked up here: a `[String: Int]` hashed each key with SipHash, a third of
/// the proto reader's cost. The table is built once from the schema and never grows, so a
/// peer's keys only read it: open addressing at a quarter full, FNV-1a over the name's bytes,
/// and one string comparison for the slot found.
struct ProtoFieldIndex: Sendable {
    private let names: [String]
    private let fields: [Int]
    /// An entry of `names` per slot, or -1 for none.
    private let slots: [Int16]
    private let mask: Int

    init(_ entries: [(name: String, field: Int)]) {
        var size = 8
        while size < entries.count * 4 { size *= 2 }
        var slots = [Int16](repeating: -1, count: size)
        for (entry, item) in entries.enumerated() {
            var slot = Self.hash(item.name) & (size - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int16(entry)
        }
        names = entries.map(\.name)
        fields = entries.map(\.field)
        self.slots = slots
        mask = size - 1
    }

    subscript(_ name: String) -> Int? {
        var slot = Self.hash(name) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { return nil }
            if names[entry] == name { return fields[entry] }
            slot = (slot + 1) & mask
        }
    }

    private static func hash(_ name: String) -> Int {
        var name = name
        return name.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return Int(truncatingIfNeeded: hash ^ (hash >> 32))
        }
    }
}
