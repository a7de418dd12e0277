// SPDX-License-Identifier: Apache-2.0

extension Outcome {
    /// The outcome in one sentence for a person: what `fcm-emu why`, the dashboard's device pane
    /// and the control API's `summary` show. Written when read, so a kept outcome costs no text.
    /// The rules it names are docs/simulation.md's.
    package var summary: String {
        switch kind {
        case .accepted: return "accepted" + (reason.map { " (\($0))" } ?? "") + ": " + acceptedHow
        case .stored: return "held: " + heldWhy
        case .delivered: return "delivered: " + deliveredHow
        case .collapsed:
            let key = reason.map { " with collapse key '\($0)'" } ?? ""
            if case .newer(let id) = extra { return "collapsed: replaced by the newer message \(id)\(key)" }
            return "collapsed: replaced by a newer message\(key)"
        case .evicted:
            let room = if case .newer(let id) = extra { " to make room for \(id)" } else { "" }
            return "evicted: the device held as many collapse keys as it may (maxCollapseKeys)\(room)"
        case .expired:
            if reason == "unacknowledged" { return "expired: the receiver never acknowledged it before its TTL ran out" }
            return "expired: its TTL ran out while it was stored"
        case .discarded: return "discarded: " + discardedWhy
        case .refused:
            let parts = [status.map { String($0) }, code, reason].compactMap { $0 }.filter { !$0.isEmpty }
            return "refused: " + (parts.isEmpty ? "the request was refused" : parts.joined(separator: " "))
        }
    }

    private var acceptedHow: String {
        guard case .via(let name, let via) = extra else { return "sent to it" }
        switch via {
        case .token: return "sent to its token"
        case .fid: return "sent to its FID"
        case .topic: return "via topic '\(name ?? "")'"
        case .condition: return "via condition \(name ?? "")"
        case .group: return "via a device group"
        }
    }

    private var heldWhy: String {
        let why =
            switch reason ?? "" {
            case "offline": "device offline"
            case "doze": "device in Doze, normal priority waits for a maintenance window"
            case "background": "iOS holds data messages until the app is in the foreground"
            case "latency": "on its way (delivery latency)"
            default: reason.map { "device \($0)" } ?? "device cannot take it now"
            }
        guard case .count(let stored) = extra else { return why }
        return "\(why), \(stored) stored"
    }

    private var deliveredHow: String {
        switch reason ?? "" {
        case "tray": "shown in the notification tray"
        case "silent": "as a silent push (content-available)"
        default: "handed to the app"
        }
    }

    private var discardedWhy: String {
        switch reason ?? "" {
        case "ttl-zero":
            guard case .state(let state) = extra else { return "TTL 0 and the device could not take it at once" }
            return "TTL 0 while the device was \(Self.phrase(state))"
        case "uninstalled": return "the app was uninstalled; its token is no longer registered"
        case "inactive": return "the device has been offline longer than inactiveAfter; FCM drops messages to inactive devices"
        case "overflow":
            let limit = if case .count(let n) = extra { " (\(n))" } else { "" }
            return "more stored messages than the limit\(limit); all were dropped and the app is told onDeletedMessages"
        default: return reason ?? "dropped without delivery"
        }
    }

    private static func phrase(_ state: DeviceState) -> String {
        switch state {
        case .doze: "in Doze"
        case .background: "in the background"
        default: state.rawValue
        }
    }
}
