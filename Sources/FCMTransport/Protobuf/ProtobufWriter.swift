// SPDX-License-Identifier: Apache-2.0

/// Writes the protobuf wire format (https://protobuf.dev/programming-guides/encoding/), fields in
/// the order called: the order protobuf's own serializers use is field-number order, which the
/// messages here follow.
package struct ProtobufWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    private mutating func key(_ field: Int, _ wireType: UInt64) { varint(UInt64(field) << 3 | wireType) }

    package mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    package mutating func uint64(_ field: Int, _ value: UInt64) {
        key(field, 0)
        varint(value)
    }

    /// `int32` and `int64`: negative values take ten bytes, as protobuf writes them.
    package mutating func int64(_ field: Int, _ value: Int64) { uint64(field, UInt64(bitPattern: value)) }
    package mutating func int32(_ field: Int, _ value: Int32) { int64(field, Int64(value)) }
    package mutating func bool(_ field: Int, _ value: Bool) { uint64(field, value ? 1 : 0) }

    package mutating func fixed64(_ field: Int, _ value: UInt64) {
        key(field, 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    package mutating func bytes(_ field: Int, _ value: some Collection<UInt8>) {
        key(field, 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    package mutating func string(_ field: Int, _ value: String) { bytes(field, value.utf8) }

    package mutating func message(_ field: Int, _ value: ProtobufWriter) { bytes(field, value.bytes) }
}
