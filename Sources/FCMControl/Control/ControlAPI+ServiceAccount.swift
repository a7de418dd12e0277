// SPDX-License-Identifier: Apache-2.0

import FCMCore
import FCMHTTP
import FCMJSON
import FCMTransport
import NIOPosix

/// `GET /emulator/v1/projects/{project}/serviceAccount`: the project's key file. Its key is made
/// on first request, which takes a 2048-bit RSA generation: on an event loop
/// the request is answered later, when a worker of `KeyPool` has made it, and the loop serves its
/// other connections meanwhile; past the pool's queue the answer is 503 with `Retry-After`.
extension ControlAPI {
    /// Wall-clock time a request waits for its key before it is told to come back.
    static let keyWaitMillis: Int64 = 30_000

    func serviceAccount(_ request: HTTPRequest, project: Project) throws(FCMError) -> HTTPResponse {
        // A key file whose token_uri points back here, as the client reached us.
        let host = request.header("Host") ?? "127.0.0.1"
        let keyFile = { @Sendable (account: ServiceAccount) -> HTTPResponse in
            ControlJSON.response(ServiceAccounts.keyFile(account, tokenURI: "http://\(host)/token"))
        }
        if let account = accounts.account(email: ServiceAccounts.email(project.id)) { return keyFile(account) }
        let room = AccountRoom(emulator)
        // Not an event loop (in-process callers: tests, scenarios, `exec`): nothing else waits on
        // this thread, so it makes the key itself.
        guard MultiThreadedEventLoopGroup.currentEventLoop != nil else {
            return keyFile(try accounts.account(forProject: project.id, room: room))
        }
        guard let ticket = accounts.request(forProject: project.id, room: room) else {
            return Self.keysBusy(
                "\(accounts.keys.maxRunning) service-account keys are being made and \(accounts.keys.maxQueued) more wait; try again in a second"
            )
        }
        let answer = { @Sendable (result: Result<ServiceAccount, FCMError>) -> HTTPResponse in
            switch result {
            case .success(let account): return keyFile(account)
            case .failure(let error): return ControlError.response(error)
            }
        }
        if let result = ticket.result { return answer(result) }
        guard let slot = live.admit(.wait) else {
            return ControlError.response(
                status: 429, name: "RESOURCE_EXHAUSTED", message: "Too many open waits (at most \(live.maxWaits)); try again later")
        }
        let projectId = project.id
        // What an in-process caller would see; the transport answers once the ticket is done.
        var response = Self.keysBusy("The service-account key is still being made; try again in a second")
        response.outcome = .live(
            .wait(
                PendingAnswer(
                    timeoutMillis: Self.keyWaitMillis,
                    check: { [emulator] in
                        if let result = ticket.result { return .answer(answer(result)) }
                        guard (try? emulator.project(projectId)) != nil else {
                            return .answer(
                                ControlError.response(status: 404, name: "NOT_FOUND", message: "Project '\(projectId)' was deleted"))
                        }
                        return .waiting
                    },
                    expire: { ticket.result.map(answer) ?? Self.keysBusy("The service-account key is still being made; try again") },
                    watch: { [emulator] wake in
                        ticket.onDone(wake)
                        // The project's deletion answers too.
                        return emulator.watchEvents(EventInterest(projectId: projectId, kinds: [.projectDeleted]), wake)
                    }, slot: slot)))
        return response
    }

    /// 503 `UNAVAILABLE` with `Retry-After: 1`: the condition is brief, so a retry is the fix
    /// (https://google.aip.dev/194 retries UNAVAILABLE).
    private static func keysBusy(_ message: String) -> HTTPResponse {
        var response = ControlError.response(status: 503, name: "UNAVAILABLE", message: message)
        response.headers.append(("Retry-After", "1"))
        return response
    }
}
