// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// Response boundaries in Google's shape: `batch_` and 32 URL-safe characters.
final class BoundaryFactory: Sendable {
    private let counter = Mutex<UInt64>(0)

    @Sendable func next() -> String {
        let n = counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        let suffix = String((0..<24).map { _ in alphabet[Int(random.next() % 64)] })
        return "batch_\(suffix)\(String(n, radix: 36))"
    }
}
