// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMJSON
import FCMTransport

/// `GET /emulator/v1/connections`: who holds connections to the HTTP and HTTPS ports, by address,
/// user agent and port, to catch pools that leak (docs/control-api.md, "Connections").
extension ControlAPI {
    func registerConnections(into router: inout Router) {
        router.add(
            "GET", "\(Self.prefix)/connections",
            handle { _, _ throws(FCMError) in
                let clients = (clients?.clients() ?? []).map { c in
                    JSONValue.object([
                        ("address", .string(c.address)), ("userAgent", .string(c.userAgent)), ("listener", .string(c.listener)),
                        ("opened", .int(c.opened)), ("open", .int(c.open)), ("requests", .int(c.requests)),
                        ("streamsOpened", .int(c.streamsOpened)), ("streamsOpen", .int(c.streamsOpen)),
                    ])
                }
                return ControlJSON.response(.object([("clients", .array(clients))]))
            })
    }
}
