// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON

/// A scripted timeline: the world to start from, then steps with what must hold after each.
/// Read from YAML by `ScenarioParser`; the format is documented in the README and in
/// `scenarios/scenario.schema.json`.
package struct Scenario: Sendable {
    package var name: String
    package var file: String
    package var settings = EmulatorSettings()
    package var start: Instant?
    /// A snapshot directory to start from (`world:`), resolved against the scenario's folder, and
    /// the line that named it.
    package var world: (path: String, line: Int)?
    package var authMode: AuthMode = .lax
    package var projects: [(id: String, number: String?, serverKeys: [String])] = []
    package var devices: [(line: Int, body: JSONValue, project: String)] = []
    package var faults: [JSONValue] = []
    package var steps: [Step] = []

    package init(name: String, file: String) {
        self.name = name
        self.file = file
    }
}

/// One step: an action, then what its answer must look like, and values to keep for later steps.
package struct Step: Sendable {
    package enum Action: Sendable {
        /// A v1 `messages:send` (`body` is the SendMessageRequest).
        case send(project: String, body: JSONValue)
        /// A legacy `/fcm/send`, JSON or plain-text form, with a server key.
        case legacy(body: JSONValue?, form: String?, key: String?)
        /// Any HTTP call to the emulator: IID, batch, device groups, the token endpoint…
        case request(method: String, path: String, headers: [(String, String)], body: JSONValue?)
        case state(device: String, to: String)
        case uninstall(device: String)
        case refreshToken(device: String)
        case subscribe(device: String, topic: String)
        case unsubscribe(device: String, topic: String)
        /// Moves the clock by a duration or to a time.
        case advance(by: String?, to: String?)
        case fault(JSONValue)
        case clearFaults
        /// Expectations on the world: a device's inbox, state, store, events, and what the
        /// scenario's XMPP connection received.
        case check(JSONValue)
        /// A downstream CCS message on the scenario's XMPP connection (logged in on first use).
        case xmpp(sender: String?, payload: JSONValue)
        /// The app server acks an upstream message or receipt on that connection.
        case xmppAck(messageId: String)
        /// A device sends an upstream message to its app server.
        case upstream(device: String, data: JSONValue?, messageId: String?)
        /// CONNECTION_DRAINING for the project's XMPP connections.
        case drain(project: String)
    }

    package let line: Int
    package let keyword: String
    package let action: Action
    /// `{status, body, error, headers}` for steps that make a call.
    package let expect: JSONValue?
    /// Variable name → dotted path in the answer's JSON body.
    package let save: [(String, String)]
    /// Run the step this many times; `${i}` is the iteration, from 1.
    package let times: Int
}
