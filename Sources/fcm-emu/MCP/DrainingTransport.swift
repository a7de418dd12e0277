// SPDX-License-Identifier: Apache-2.0

import FCMJSON
import Foundation
import Logging
import MCP

/// The SDK's stdio transport, whose input ends only once every request read has been answered.
/// A client may write its last request and close stdin at once (the MCP specification,
/// 2025-06-18, "Lifecycle", "stdio": the client closes the server's input to shut down); the
/// SDK's server ends with its input and runs each request in a task of its own, so without this
/// the answers still being worked out would be lost.
actor DrainingTransport: Transport {
    /// How long the last answers are waited for after stdin closes: a tool call makes a few
    /// control-API requests of at most 10 s each (`ControlClient`).
    static let drainSeconds = 60

    nonisolated let logger: Logger
    private let inner: StdioTransport
    private var requests = 0
    private var responses = 0
    private var drained: [CheckedContinuation<Void, Never>] = []

    init(logger: Logger) {
        self.logger = logger
        inner = StdioTransport(logger: logger)
    }

    func connect() async throws { try await inner.connect() }

    func disconnect() async { await inner.disconnect() }

    func send(_ data: Data) async throws {
        try await inner.send(data)
        responses += Self.count(data, responses: true)
        if responses >= requests { release() }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await data in await self.inner.receive() {
                        self.counted(data)
                        continuation.yield(data)
                    }
                    await self.drain()
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func counted(_ data: Data) { requests += Self.count(data, responses: false) }

    /// Returns once every request read has its answer, or after `drainSeconds`.
    private func drain() async {
        guard responses < requests else { return }
        logger.debug("stdin closed; waiting for the last answers", metadata: ["pending": "\(requests - responses)"])
        let timeout = Task {
            try? await Task.sleep(for: .seconds(Self.drainSeconds))
            self.release()
        }
        await withCheckedContinuation { drained.append($0) }
        timeout.cancel()
    }

    private func release() {
        let waiting = drained
        drained = []
        for continuation in waiting { continuation.resume() }
    }

    /// JSON-RPC requests (a `method` and an `id`) or responses (an `id` and no `method`) in one
    /// message or batch.
    static func count(_ data: Data, responses: Bool) -> Int {
        guard let message = try? JSONParser.parse(Array(data)) else { return 0 }
        let items = message.arrayValue ?? [message]
        return items.filter { item in
            guard item["id"] != nil, item.objectValue != nil else { return false }
            return (item["method"] == nil) == responses
        }.count
    }
}
