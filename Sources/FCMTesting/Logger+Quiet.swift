// SPDX-License-Identifier: Apache-2.0

import Logging

extension Logger {
    /// A logger that drops everything: a test asserts on answers and events, and the access log
    /// of hundreds of parallel tests would bury a failure's own output.
    public static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
}
