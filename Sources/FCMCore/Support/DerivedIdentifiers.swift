// SPDX-License-Identifier: Apache-2.0

/// The registration tokens and FIDs the emulator makes, derived from the device's index instead
/// of kept: at a million idle devices, a kept token (163 characters on the heap), its FID and the
/// two tables that found a device by them were over half of a device's memory
/// (docs/benchmarks.md, "Memory per device").
///
/// A derived identifier carries its device's index, and for a token the token's generation,
/// scrambled by a bijection keyed by the world's seed into its first 64 bits of base64url; its
/// other characters are drawn from a generator seeded by those 64 bits. So an identifier names
/// its device without a table, and a device's identifier is rebuilt from (key, index,
/// generation). Reading one back rebuilds it and compares every character, so a near miss is
/// nobody's. The shapes are the service's: a FID is 22 characters whose first four bits are 0111
/// (`c`–`f`), a token `<fid>:APA91b<134 characters>`.
struct DerivedIdentifiers: Sendable {
    static let fidLength = 22
    static let tokenTailLength = 134
    /// What separates a token's FID from the rest, read in place through its pointer.
    private static let tokenMarkText: StaticString = ":APA91b"
    private static var tokenMark: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: tokenMarkText.utf8Start, count: tokenMarkText.utf8CodeUnitCount)
    }
    /// Read through its pointer: a send rebuilds a token, 163 characters, to read one back.
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    /// Each base64url character's value, 255 for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for value in 0..<64 { table[Int(digit(UInt64(value)))] = UInt8(value) }
        return table
    }()

    /// The base64url character of the low six bits of `value`.
    @inline(__always) private static func digit(_ value: UInt64, _ table: UnsafePointer<UInt8> = alphabet.utf8Start) -> UInt8 {
        table[Int(value & 63)]
    }

    private let fidKey: UInt64
    private let tokenKey: UInt64

    init(seed: UInt64) {
        // "identity" in ASCII: keys apart from the generator `IdentifierFactory` draws from the seed.
        var random = SeededRandom(seed: seed ^ 0x6964_656E_7469_7479)
        fidKey = random.next()
        tokenKey = random.next()
    }

    // MARK: - Making

    func fid(device: DeviceID) -> String {
        String(unsafeUninitializedCapacity: Self.fidLength) { out in
            writeFid(device: device, into: out)
            return Self.fidLength
        }
    }

    /// `<fid>:APA91b<134 characters>`, where the FID is the device's derived one unless it was given.
    func token(device: DeviceID, generation: UInt32, givenFid: String?) -> String {
        withFid(device: device, givenFid: givenFid) { fid in
            let count = fid.count + Self.tokenMark.count + Self.tokenTailLength
            return String(unsafeUninitializedCapacity: count) { out in
                writeToken(device: device, generation: generation, fid: fid, into: out)
                return count
            }
        }
    }

    // MARK: - Reading back

    /// The device whose derived FID `fid` is, if it is one.
    func fidOwner(_ fid: String) -> DeviceID? {
        var fid = fid
        return fid.withUTF8 { bytes -> DeviceID? in
            guard bytes.count == Self.fidLength, let scrambled = Self.read64(bytes, from: 1),
                case let plain = Self.unscramble(scrambled) ^ fidKey, plain <= UInt64(Int32.max)
            else { return nil }
            let device = DeviceID(plain)
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.fidLength) { rebuilt in
                writeFid(device: device, into: rebuilt)
                return Self.same(UnsafeBufferPointer(rebuilt), bytes) ? device : nil
            }
        }
    }

    /// The device and generation a derived token names, if `token` has a derived token's shape.
    /// Its FID part is not checked: the caller rebuilds the device's whole token and compares.
    func tokenOwner(_ token: String) -> (device: DeviceID, generation: UInt32)? {
        var token = token
        return token.withUTF8 { bytes -> (device: DeviceID, generation: UInt32)? in
            let tail = bytes.count - Self.tokenTailLength
            guard tail > Self.tokenMark.count,
                Self.same(Self.tokenMark, UnsafeBufferPointer(rebasing: bytes[(tail - Self.tokenMark.count)..<tail])),
                let scrambled = Self.read64(bytes, from: tail)
            else { return nil }
            let plain = Self.unscramble(scrambled) ^ tokenKey
            guard plain & 0xFFFF_FFFF <= UInt64(Int32.max) else { return nil }
            return (DeviceID(plain & 0xFFFF_FFFF), UInt32(plain >> 32))
        }
    }

    /// Whether `token` is the derived token of (device, generation, FID), character for character.
    func isToken(_ token: String, device: DeviceID, generation: UInt32, givenFid: String?) -> Bool {
        var token = token
        return token.withUTF8 { bytes in
            withFid(device: device, givenFid: givenFid) { fid in
                let count = fid.count + Self.tokenMark.count + Self.tokenTailLength
                guard bytes.count == count else { return false }
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { rebuilt in
                    writeToken(device: device, generation: generation, fid: fid, into: rebuilt)
                    return Self.same(UnsafeBufferPointer(rebuilt), bytes)
                }
            }
        }
    }

    // MARK: - Writing

    /// Hands `body` the FID's bytes: the given one's, or the derived one written on the stack.
    private func withFid<R>(device: DeviceID, givenFid: String?, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if var given = givenFid { return given.withUTF8(body) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.fidLength) { fid in
            writeFid(device: device, into: fid)
            return body(UnsafeBufferPointer(fid))
        }
    }

    private func writeFid(device: DeviceID, into out: UnsafeMutableBufferPointer<UInt8>) {
        let scrambled = Self.scramble(UInt64(UInt32(bitPattern: device)) ^ fidKey)
        var random = SeededRandom(seed: scrambled)
        let first = random.next()
        // 0111xx: the first character is one of c d e f.
        out[0] = Self.digit(28 + (first & 3))
        Self.write64(scrambled, spare: first >> 2, into: out, at: 1)
        Self.fill(out, from: 12, to: Self.fidLength, with: &random)
    }

    private func writeToken(
        device: DeviceID, generation: UInt32, fid: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>
    ) {
        let plain = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: device))
        let scrambled = Self.scramble(plain ^ tokenKey)
        var random = SeededRandom(seed: scrambled)
        var at = 0
        for byte in fid {
            out[at] = byte
            at += 1
        }
        for byte in Self.tokenMark {
            out[at] = byte
            at += 1
        }
        Self.write64(scrambled, spare: random.next(), into: out, at: at)
        Self.fill(out, from: at + 11, to: at + Self.tokenTailLength, with: &random)
    }

    /// Eleven characters: two spare bits then the 64 bits of `value`, high bits first.
    private static func write64(_ value: UInt64, spare: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        let table = alphabet.utf8Start
        out[start] = digit((spare & 3) << 4 | value >> 60, table)
        for i in 1...10 { out[start + i] = digit(value >> UInt64(60 - 6 * i), table) }
    }

    private static func read64(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64? {
        guard start + 11 <= bytes.count else { return nil }
        var value: UInt64 = 0
        for i in 0..<11 {
            let digit = values[Int(bytes[start + i])]
            guard digit != 255 else { return nil }
            value = value << 6 | UInt64(i == 0 ? digit & 15 : digit)
        }
        return value
    }

    private static func fill(_ out: UnsafeMutableBufferPointer<UInt8>, from start: Int, to end: Int, with random: inout SeededRandom) {
        let table = alphabet.utf8Start
        var at = start
        while at < end {
            var bits = random.next()
            for _ in 0..<min(10, end - at) {
                out[at] = digit(bits, table)
                bits >>= 6
                at += 1
            }
        }
    }

    /// Byte equality a word at a time (`elementsEqual` over two buffer types went element by
    /// element through generic iterators: most of a send's token lookup).
    private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let a = UnsafeRawBufferPointer(a)
        let b = UnsafeRawBufferPointer(b)
        var i = 0
        while i + 8 <= a.count {
            guard a.loadUnaligned(fromByteOffset: i, as: UInt64.self) == b.loadUnaligned(fromByteOffset: i, as: UInt64.self) else {
                return false
            }
            i += 8
        }
        while i < a.count {
            guard a[i] == b[i] else { return false }
            i += 1
        }
        return true
    }

    // MARK: - The bijection

    /// SplitMix64's finaliser: a bijection on 64 bits whose every output bit depends on every
    /// input bit, so consecutive indexes give unrelated identifiers.
    static func scramble(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The inverse of `scramble`: each xor-shift undone, each product multiplied by its inverse
    /// modulo 2^64.
    static func unscramble(_ value: UInt64) -> UInt64 {
        var z = unshift(value, 31)
        z = unshift(z &* 0x3196_42B2_D24D_8EC3, 27)
        return unshift(z &* 0x96DE_1B17_3F11_9089, 30)
    }

    /// The `x` with `x ^ (x >> shift) == value`: each round fixes `shift` more high bits.
    private static func unshift(_ value: UInt64, _ shift: UInt64) -> UInt64 {
        var x = value
        var known = shift
        while known < 64 {
            x = value ^ (x >> shift)
            known += shift
        }
        return x
    }
}
