// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The one entry the fuzz harness (Fuzz/, an outside package) needs: every frame of `bytes`
/// decoded as far as it goes. Returns how many messages decoded.
public enum MCSWire {
    public static func decodeAll(_ bytes: [UInt8], maxFrameBytes: Int = 64 << 10) -> Int {
        var decoder = MCSFrameDecoder(maxFrameBytes: maxFrameBytes)
        var buffer = ByteBuffer(bytes: bytes)
        var count = 0
        while let frame = try? decoder.next(&buffer) {
            guard let message = try? MCSMessage(frame) else { continue }
            // Written back, as the server writes what it builds.
            var out = ByteBuffer()
            message.encode(into: &out)
            count += 1
        }
        return count
    }
}
