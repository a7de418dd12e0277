// SPDX-License-Identifier: Apache-2.0

/// An error a route throws that is its own answer, in its API's dialect (a v1 error's
/// `google.rpc.Status`, a legacy error's plain text): the router answers with `response`, so a
/// route writes its way to the answer as the straight path and lets a refusal end it from any
/// depth. An error that is not one is the emulator's own mistake, answered as its API's 500.
public protocol RouteError: Error {
    var response: HTTPResponse { get }
}
