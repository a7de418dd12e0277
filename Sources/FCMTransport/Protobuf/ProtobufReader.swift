// SPDX-License-Identifier: Apache-2.0

/// Reads the protobuf wire format (https://protobuf.dev/programming-guides/encoding/): what the
/// GCM client protocols (check-in, MCS) send. Only the four wire types proto2 messages use
/// without groups; anything else, a truncated field or an overlong varint is an error, never a
/// crash. Reads from the caller's bytes, copying only the fields taken out as strings or bytes.
package struct ProtobufReader {
    package enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        case bytes(ArraySlice<UInt8>)
    }

    package struct Field {
        package let number: Int
        package let value: Value

        package var uint64: UInt64? {
            switch value {
            case .varint(let v), .fixed64(let v): v
            case .fixed32(let v): UInt64(v)
            case .bytes: nil
            }
        }

        /// An `int32` or `int64` field: the varint's two's complement.
        package var int64: Int64? { uint64.map { Int64(bitPattern: $0) } }
        package var int32: Int32? { int64.map { Int32(truncatingIfNeeded: $0) } }
        package var bool: Bool? { uint64.map { $0 != 0 } }

        package var bytes: ArraySlice<UInt8>? {
            if case .bytes(let b) = value { return b }
            return nil
        }

        /// A `string` field; bytes that are not UTF-8 are repaired (U+FFFD), as a lenient reader
        /// does: the ids and tokens these messages carry are ASCII.
        package var string: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
    }

    private let bytes: ArraySlice<UInt8>
    private var index: Int

    package init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    package init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// The next field, or nil at the end.
    package mutating func next() throws(ProtobufError) -> Field? {
        guard index < bytes.endIndex else { return nil }
        let key = try varint()
        let number = key >> 3
        guard number > 0, number <= 536_870_911 else { throw .badFieldNumber }
        switch key & 7 {
        case 0: return Field(number: Int(number), value: .varint(try varint()))
        case 1: return Field(number: Int(number), value: .fixed64(try fixed(8)))
        case 5: return Field(number: Int(number), value: .fixed32(UInt32(truncatingIfNeeded: try fixed(4))))
        case 2:
            let length = try varint()
            guard length <= UInt64(bytes.endIndex - index) else { throw .truncated }
            let end = index + Int(length)
            defer { index = end }
            return Field(number: Int(number), value: .bytes(bytes[index..<end]))
        default:
            // 3 and 4 are groups (deprecated, never used by these protocols); 6 and 7 do not exist.
            throw .unsupportedWireType(Int(key & 7))
        }
    }

    private mutating func varint() throws(ProtobufError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.endIndex else { throw .truncated }
            let byte = bytes[index]
            index += 1
            // The tenth byte holds the top bit only.
            guard shift < 63 || byte <= 1 else { throw .overlongVarint }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private mutating func fixed(_ count: Int) throws(ProtobufError) -> UInt64 {
        guard bytes.endIndex - index >= count else { throw .truncated }
        var value: UInt64 = 0
        for offset in 0..<count { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
        index += count
        return value
    }

    /// Every field of `bytes`, at most `limit` of them (a message's repeated fields are bounded by its frame's size).
    package static func fields(_ bytes: ArraySlice<UInt8>, limit: Int = 4096) throws(ProtobufError) -> [Field] {
        var reader = ProtobufReader(bytes)
        var fields: [Field] = []
        while let field = try reader.next() {
            guard fields.count < limit else { throw .tooManyFields }
            fields.append(field)
        }
        return fields
    }
}

package enum ProtobufError: Error, Equatable, CustomStringConvertible {
    case truncated
    case overlongVarint
    case badFieldNumber
    case unsupportedWireType(Int)
    case tooManyFields
    /// A field had another wire type than its message declares.
    case wrongType(field: Int)
    /// A field the message requires is absent.
    case missing(String)

    package var description: String {
        switch self {
        case .truncated: "a field runs past the end of the message"
        case .overlongVarint: "a varint longer than 10 bytes"
        case .badFieldNumber: "field number 0 or past 2^29-1"
        case .unsupportedWireType(let t): "wire type \(t) (groups and unknown types are not read)"
        case .tooManyFields: "too many fields"
        case .wrongType(let f): "field \(f) has the wrong wire type"
        case .missing(let name): "the required field \(name) is missing"
        }
    }
}
