// SPDX-License-Identifier: Apache-2.0

/// The little of DNS (RFC 1035, section 4.1) that `exec --isolate`'s resolver needs: the one
/// question of a standard query, and an answer to it built from the query's own bytes. A packet
/// that is not such a query (a response, another opcode, several questions, a compressed or
/// over-long name, bytes missing, more than `maxQuery` bytes) is `nil`: the resolver drops it.
struct DNSQuestion: Equatable {
    /// UDP messages are limited to 512 bytes (RFC 1035, 4.2.1); a query needs far fewer.
    static let maxQuery = 512
    /// A name is at most 255 octets on the wire, a label at most 63 (RFC 1035, 2.3.4).
    static let maxNameOctets = 255
    static let typeA: UInt16 = 1
    static let typeAny: UInt16 = 255
    static let classIN: UInt16 = 1

    enum Answer: Equatable {
        /// 127.0.0.1 for a question of type A (or ANY), no data for any other type (AAAA too):
        /// the name exists and only IPv4 loopback stands in for it.
        case loopback
        /// NXDOMAIN: there is no such name here.
        case noSuchName
        /// REFUSED: a class other than IN.
        case refused
    }

    let id: UInt16
    /// Recursion desired, echoed as RFC 1035 asks.
    let recursionDesired: Bool
    /// Lowercased, labels joined by dots, no trailing dot ("" for the root).
    let name: String
    let type: UInt16
    let klass: UInt16
    /// The question's bytes, echoed in the answer.
    let section: [UInt8]

    init?(_ packet: some Collection<UInt8>) {
        let bytes = Array(packet.prefix(Self.maxQuery + 1))
        guard bytes.count >= 12, bytes.count <= Self.maxQuery else { return nil }
        // QR 0 (a query), opcode 0 (standard), exactly one question.
        guard bytes[2] & 0x80 == 0, (bytes[2] >> 3) & 0x0f == 0, Self.u16(bytes, 4) == 1 else { return nil }
        var labels: [String] = []
        var at = 12
        var octets = 0
        while true {
            guard at < bytes.count else { return nil }
            let length = Int(bytes[at])
            // 0xC0: a compression pointer, which a query's only name has no use for; 0x40, 0x80: reserved.
            guard length <= 63 else { return nil }
            octets += length + 1
            guard octets <= Self.maxNameOctets, at + 1 + length <= bytes.count else { return nil }
            if length == 0 { break }
            labels.append(String(decoding: bytes[(at + 1)..<(at + 1 + length)].map(Self.lower), as: UTF8.self))
            at += 1 + length
        }
        at += 1
        guard at + 4 <= bytes.count else { return nil }
        id = Self.u16(bytes, 0)
        recursionDesired = bytes[2] & 0x01 != 0
        name = labels.joined(separator: ".")
        type = Self.u16(bytes, at)
        klass = Self.u16(bytes, at + 2)
        section = Array(bytes[12..<(at + 4)])
    }

    /// The reply to this question: the header, the question echoed, and for `.loopback` to a
    /// question of type A or ANY one A record, 127.0.0.1, named by a pointer to the question.
    func reply(_ answer: Answer, ttl: UInt32 = 60) -> [UInt8] {
        let rcode: UInt8
        var records: [UInt8] = []
        switch answer {
        case .loopback:
            rcode = 0
            if type == Self.typeA || type == Self.typeAny {
                records = [0xC0, 0x0C] + Self.bytes(Self.typeA) + Self.bytes(Self.classIN)
                records += Self.bytes(UInt16(ttl >> 16)) + Self.bytes(UInt16(ttl & 0xffff)) + Self.bytes(4) + [127, 0, 0, 1]
            }
        case .noSuchName: rcode = 3
        case .refused: rcode = 5
        }
        // QR, AA (this resolver is the authority on every name it answers), RD echoed; RA 0.
        let flags: [UInt8] = [0x80 | 0x04 | (recursionDesired ? 0x01 : 0), rcode]
        let counts = Self.bytes(1) + Self.bytes(records.isEmpty ? 0 : 1) + Self.bytes(0) + Self.bytes(0)
        return Self.bytes(id) + flags + counts + section + records
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
    private static func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    private static func lower(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }
}
