// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A device line as the fast path read it.
enum FastDevice: Sendable {
    case live(SnapshotRecord.Device)
    case deleted(id: DeviceID, project: Int32)
}

/// What consecutive device lines share, made once: the world keeps one copy of an app id for
/// all the devices that have it (Device.swift), and an import should too; likewise one list of
/// topics for devices subscribed alike, and one buffer for gathering stored copies.
struct SharedStrings {
    private var last: String = ""
    /// Makes each line's list of stored copies.
    var stored = SnapshotRecord.StoredList.Builder()
    /// The last line's topics: most devices share their subscriptions, and then their list.
    var topics: [(String, Instant)] = []

    mutating func topics(_ list: [(String, Instant)]) -> [(String, Instant)] {
        if list.elementsEqual(topics, by: { $0.0 == $1.0 && $0.1 == $1.1 }) { return topics }
        topics = list
        return list
    }

    mutating func string(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        if last.utf8.elementsEqual(raw) { return last }
        guard let s = String(validating: raw, as: UTF8.self) else { return nil }
        last = s
        return s
    }
}

extension DeviceLines {
    /// Reads a line in exactly the shape `write` makes; nil for anything else (the strict path
    /// then reads it or names the fault). Keys may come in any order, each at most once.
    static func fastRead(_ line: UnsafeBufferPointer<UInt8>, messages: [Message], shared: inout SharedStrings) -> FastDevice? {
        var s = ByteScanner(line)
        guard s.take(UInt8(ascii: "{")) else { return nil }
        var id: Int64?, project: Int64?, deleted = false
        var platform: Platform?, name: String?, appId: String?, token: String?, tokenValid = true, fid: String?
        var state: DeviceState?, createdAt: Int64?, lastConnectedAt: Int64?, lastInactiveDiscardAt: Int64?, lastSeenAt: Int64?
        var deletedSignalOwed = false, generation: Int64 = 0
        var senders: [String] = [], topics: [(String, Instant)] = [], stored = SnapshotRecord.StoredList()
        var seen: UInt32 = 0
        repeat {
            guard let key = s.key() else { return nil }
            let bit: UInt32
            if key.equals("id") {
                bit = 1
                id = s.int()
            } else if key.equals("project") {
                bit = 2
                project = s.int()
            } else if key.equals("platform") {
                bit = 4
                platform = s.rawString().flatMap(Self.platform)
            } else if key.equals("appId") {
                bit = 8
                appId = s.rawString().flatMap { shared.string($0) }
            } else if key.equals("token") {
                bit = 16
                token = s.string()
            } else if key.equals("fid") {
                bit = 32
                fid = s.string()
            } else if key.equals("state") {
                bit = 64
                state = s.rawString().flatMap(Self.state)
            } else if key.equals("createdAt") {
                bit = 128
                createdAt = s.int()
            } else if key.equals("lastConnectedAt") {
                bit = 256
                lastConnectedAt = s.int()
            } else if key.equals("stored") {
                bit = 512
                guard let list = readStored(&s, messages: messages, into: &shared.stored) else { return nil }
                stored = list
            } else if key.equals("name") {
                bit = 1024
                guard let n = s.string() else { return nil }
                name = n
            } else if key.equals("tokenValid") {
                bit = 2048
                guard let v = s.bool() else { return nil }
                tokenValid = v
            } else if key.equals("lastInactiveDiscardAt") {
                bit = 4096
                guard let v = s.int() else { return nil }
                lastInactiveDiscardAt = v
            } else if key.equals("deletedSignalOwed") {
                bit = 8192
                guard let v = s.bool() else { return nil }
                deletedSignalOwed = v
            } else if key.equals("stateGeneration") {
                bit = 16384
                guard let v = s.int() else { return nil }
                generation = v
            } else if key.equals("senders") {
                bit = 32768
                guard s.take(UInt8(ascii: "[")) else { return nil }
                if !s.take(UInt8(ascii: "]")) {
                    repeat {
                        guard let v = s.string() else { return nil }
                        senders.append(v)
                    } while s.take(UInt8(ascii: ","))
                    guard s.take(UInt8(ascii: "]")) else { return nil }
                }
            } else if key.equals("topics") {
                bit = 65536
                guard s.take(UInt8(ascii: "[")) else { return nil }
                if !s.take(UInt8(ascii: "]")) {
                    repeat {
                        guard s.take(UInt8(ascii: "[")), let t = s.string(), s.take(UInt8(ascii: ",")), let since = s.int(),
                            s.take(UInt8(ascii: "]"))
                        else { return nil }
                        topics.append((t, Instant(millis: since)))
                    } while s.take(UInt8(ascii: ","))
                    guard s.take(UInt8(ascii: "]")) else { return nil }
                    topics = shared.topics(topics)
                }
            } else if key.equals("lastSeenAt") {
                bit = 262144
                guard let v = s.int() else { return nil }
                lastSeenAt = v
            } else if key.equals("deleted") {
                bit = 131072
                guard s.literal("true") else { return nil }
                deleted = true
            } else {
                return nil  // inbox, webPush (a web device's keys, checked there), or a field the strict path will name
            }
            guard seen & bit == 0 else { return nil }
            seen |= bit
        } while s.take(UInt8(ascii: ","))
        guard s.take(UInt8(ascii: "}")), s.atEnd, let id = id.flatMap({ DeviceID(exactly: $0) }),
            let project = project.flatMap({ Int32(exactly: $0) })
        else { return nil }
        if deleted { return seen == 1 | 2 | 131072 ? .deleted(id: id, project: project) : nil }
        guard let platform, let appId, let token, let fid, let state, let createdAt, let lastConnectedAt,
            let generation = UInt32(exactly: generation)
        else { return nil }
        return .live(
            SnapshotRecord.Device(
                id: id, projectIndex: project, platform: platform, name: name, appId: appId, token: token, tokenValid: tokenValid, fid: fid,
                state: state, extraSenders: senders, topics: topics, createdAt: Instant(millis: createdAt),
                lastConnectedAt: Instant(millis: lastConnectedAt), lastInactiveDiscardAt: lastInactiveDiscardAt.map(Instant.init),
                deletedSignalOwed: deletedSignalOwed, stateGeneration: generation, stored: stored, inbox: nil,
                lastSeenAt: lastSeenAt.map(Instant.init)))
    }

    /// `[[ref,seq,available,expires|null,flags,ttl,key|null],…]`
    private static func readStored(
        _ s: inout ByteScanner, messages: [Message], into out: inout SnapshotRecord.StoredList.Builder
    ) -> SnapshotRecord.StoredList? {
        guard s.take(UInt8(ascii: "[")) else { return nil }
        out.removeAll()
        if s.take(UInt8(ascii: "]")) { return SnapshotRecord.StoredList() }
        repeat {
            guard s.take(UInt8(ascii: "[")), let ref = s.int(), ref >= 0, ref < Int64(messages.count), s.take(UInt8(ascii: ",")),
                let sequence = s.int(), sequence >= 0, s.take(UInt8(ascii: ",")), let available = s.int(), s.take(UInt8(ascii: ","))
            else { return nil }
            var expires: Int64?
            if !s.literal("null") {
                guard let v = s.int() else { return nil }
                expires = v
            }
            guard s.take(UInt8(ascii: ",")), let flags = s.int(), s.take(UInt8(ascii: ",")), let ttl = s.int(), s.take(UInt8(ascii: ","))
            else { return nil }
            var collapseKey: String?
            if !s.literal("null") {
                guard let v = s.string() else { return nil }
                collapseKey = v
            }
            guard s.take(UInt8(ascii: "]")) else { return nil }
            let profile = SnapshotRecord.Profile(
                isNotification: flags & 1 != 0, contentAvailable: flags & 2 != 0, priority: flags & 4 != 0 ? .high : .normal,
                originalPriority: flags & 8 != 0 ? .high : .normal, ttlSeconds: ttl, collapseKey: collapseKey)
            out.append(
                SnapshotRecord.Stored(
                    message: messages[Int(ref)], storeSequence: UInt64(sequence), availableAt: Instant(millis: available),
                    expiresAt: expires.map(Instant.init), profile: profile))
        } while s.take(UInt8(ascii: ","))
        guard s.take(UInt8(ascii: "]")) else { return nil }
        return out.finish()
    }

    private static func platform(_ raw: UnsafeBufferPointer<UInt8>) -> Platform? {
        if raw.equals("android") { return .android }
        if raw.equals("ios") { return .ios }
        if raw.equals("web") { return .web }
        return nil
    }

    private static func state(_ raw: UnsafeBufferPointer<UInt8>) -> DeviceState? {
        if raw.equals("offline") { return .offline }
        if raw.equals("background") { return .background }
        if raw.equals("foreground") { return .foreground }
        if raw.equals("doze") { return .doze }
        if raw.equals("uninstalled") { return .uninstalled }
        return nil
    }
}

extension TimerLines {
    /// `[deadline,sequence,"expire",device,storeSequence]` and the other two shapes; nil for
    /// anything else (the strict path reads it or names the fault).
    static func fastRead(_ line: UnsafeBufferPointer<UInt8>) -> SnapshotRecord.Timer? {
        var s = ByteScanner(line)
        guard s.take(UInt8(ascii: "[")), let deadline = s.int(), s.take(UInt8(ascii: ",")), let sequence = s.int(), sequence >= 0,
            s.take(UInt8(ascii: ",")), let kind = s.rawString(), s.take(UInt8(ascii: ",")),
            let device = s.int().flatMap({ DeviceID(exactly: $0) })
        else { return nil }
        let action: SnapshotRecord.Timer.Action
        if kind.equals("expire") {
            guard s.take(UInt8(ascii: ",")), let v = s.int(), v >= 0 else { return nil }
            action = .expire(device: device, storeSequence: UInt64(v))
        } else if kind.equals("doze") {
            guard s.take(UInt8(ascii: ",")), let v = s.int().flatMap({ UInt32(exactly: $0) }) else { return nil }
            action = .dozeMaintenance(device: device, generation: v)
        } else if kind.equals("retry") {
            action = .retryDelivery(device: device)
        } else {
            return nil
        }
        guard s.take(UInt8(ascii: "]")), s.atEnd else { return nil }
        return SnapshotRecord.Timer(deadline: Instant(millis: deadline), sequence: UInt64(sequence), action: action)
    }
}
