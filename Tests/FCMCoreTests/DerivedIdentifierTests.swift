// SPDX-License-Identifier: Apache-2.0

@testable import FCMCore
import FCMTesting
import Testing

/// Tokens and FIDs derived from a device's index (`DerivedIdentifiers`): the service's shapes, each
/// read back to its device, and nothing else read back to one.
@Suite struct DerivedIdentifierTests {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private let ids = DerivedIdentifiers(seed: 1)
    private let devices: [DeviceID] = [0, 1, 2, 63, 64, 1000, 65_535, 1 << 20, Int32.max - 1, Int32.max]

    @Test func theBijectionIsUndone() {
        var random = SeededRandom(seed: 7)
        let values: [UInt64] = [0, 1, 2, .max, .max - 1, 1 << 63, 0x5555_5555_5555_5555] + (0..<10_000).map { _ in random.next() }
        for value in values {
            #expect(DerivedIdentifiers.unscramble(DerivedIdentifiers.scramble(value)) == value)
        }
    }

    @Test func fidsHaveTheServiceShapeAndNameTheirDevice() {
        for device in devices {
            let fid = ids.fid(device: device)
            #expect(fid.utf8.count == 22)
            #expect("cdef".utf8.contains(fid.utf8.first ?? 0))
            #expect(fid.utf8.allSatisfy { Self.alphabet.contains($0) })
            #expect(ids.fidOwner(fid) == device)
        }
    }

    @Test func tokensHaveTheServiceShapeAndNameTheirDeviceAndGeneration() {
        for device in devices {
            for generation: UInt32 in [0, 1, 2, 1 << 31, .max] {
                let token = ids.token(device: device, generation: generation, givenFid: nil)
                #expect(token.utf8.count == 163)
                #expect(token.hasPrefix(ids.fid(device: device) + ":APA91b"))
                #expect(IdentifierShape.isWellFormedToken(token))
                let owner = ids.tokenOwner(token)
                #expect(owner?.device == device && owner?.generation == generation)
                #expect(ids.isToken(token, device: device, generation: generation, givenFid: nil))
                #expect(!ids.isToken(token, device: device, generation: generation &+ 1, givenFid: nil))
            }
            let given = ids.token(device: device, generation: 3, givenFid: "my-own-installation")
            #expect(given.hasPrefix("my-own-installation:APA91b") && given.utf8.count == 19 + 7 + 134)
            #expect(ids.isToken(given, device: device, generation: 3, givenFid: "my-own-installation"))
            #expect(!ids.isToken(given, device: device, generation: 3, givenFid: nil))
        }
    }

    /// Every one-character change of a token or FID names nobody, or another identifier that
    /// rebuilding does not match.
    @Test func aNearMissIsNobodys() {
        let fid = Array(ids.fid(device: 12_345).utf8)
        let token = Array(ids.token(device: 12_345, generation: 2, givenFid: nil).utf8)
        for position in fid.indices {
            for byte in Self.alphabet where byte != fid[position] {
                var changed = fid
                changed[position] = byte
                #expect(ids.fidOwner(String(decoding: changed, as: UTF8.self)) == nil)
            }
        }
        for position in token.indices {
            for byte in Self.alphabet + Array(":".utf8) where byte != token[position] {
                var changed = token
                changed[position] = byte
                let text = String(decoding: changed, as: UTF8.self)
                let owner = ids.tokenOwner(text)
                #expect(owner.map { ids.isToken(text, device: $0.device, generation: $0.generation, givenFid: nil) } != true)
            }
        }
    }

    @Test func malformedTextIsNobodys() {
        let tail = String(repeating: "A", count: 134)
        for text in [
            "", "c", ":APA91b", ":APA91b" + tail, "x:APA91b" + tail.dropLast(), "x:APA91c" + tail, "x:APA91b" + "é" + tail.dropFirst(2),
            "x:APA91b" + "!!!!!!!!!!!" + tail.dropFirst(11), String(repeating: "\u{0}", count: 22), String(repeating: "ü", count: 11),
        ] {
            #expect(ids.fidOwner(text) == nil)
            if let owner = ids.tokenOwner(text) {
                #expect(!ids.isToken(text, device: owner.device, generation: owner.generation, givenFid: "x"))
            }
        }
    }

    @Test func identifiersAreDistinctAndTheSeedChangesThem() {
        let count: Int32 = 20_000
        #expect(Set((0..<count).map { ids.fid(device: $0) }).count == Int(count))
        #expect(Set((0..<count).map { ids.token(device: $0, generation: 0, givenFid: nil) }).count == Int(count))
        let other = DerivedIdentifiers(seed: 2)
        #expect(other.fid(device: 5) != ids.fid(device: 5))
        #expect(other.fidOwner(ids.fid(device: 5)) != 5 || other.fid(device: 5) == ids.fid(device: 5))
        #expect(
            DerivedIdentifiers(seed: 1).token(device: 9, generation: 0, givenFid: nil) == ids.token(device: 9, generation: 0, givenFid: nil)
        )
    }
}
