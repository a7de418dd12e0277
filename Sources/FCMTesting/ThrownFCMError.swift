// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// The `FCMError` a call throws, or nil when it succeeds (or throws something else), so a test
/// can compare the rule's code and reason with `#expect`.
public func thrownFCMError(_ body: () throws -> Void) -> FCMError? {
    do {
        try body()
        return nil
    } catch let error as FCMError {
        return error
    } catch {
        return nil
    }
}
