// SPDX-License-Identifier: Apache-2.0

import FCMHTTP
import FCMMCS
import FCMTransport
import FCMXMPP

/// What the proxy stands in for, from each front's own list of Google's hosts: the HTTP fronts'
/// on 443 (and their names for plain HTTP), CCS's on FCM's XMPP ports, MCS on 5228, each joined
/// to the local listener that serves it; a listener that is off stands in for nothing.
enum GoogleStandIns {
    /// - Parameter xmppPorts: FCM's port (5235 or 5236) → the local XMPP listener's.
    static func make(tlsPort: Int?, xmppPorts: [Int: Int], mcsPort: Int?) -> StandIns {
        var standIns = StandIns()
        standIns.serve(FrontHosts.https, port: 443, by: tlsPort)
        standIns.answerPlainHTTP(FrontHosts.all)
        for (fcmPort, local) in xmppPorts { standIns.serve(XMPPServer.hosts, port: fcmPort, by: local) }
        standIns.serve([MCSServer.host], port: MCSServer.fcmPort, by: mcsPort)
        return standIns
    }
}
