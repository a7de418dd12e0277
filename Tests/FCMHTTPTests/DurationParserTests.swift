// SPDX-License-Identifier: Apache-2.0

@testable import FCMHTTP
import Testing

/// `google.protobuf.Duration` text as TTLs are written (`^-?\d+(\.\d{1,9})?s$`, the proto3 JSON
/// mapping, https://protobuf.dev/programming-guides/json/), in milliseconds rounded down.
@Suite("Duration text")
struct DurationParserTests {
    @Test(
        arguments: [
            ("3600s", 3_600_000), ("0s", 0), ("3.5s", 3_500), ("3.500000000s", 3_500), ("0.0019s", 1), ("-2.25s", -2_250),
            ("999999999999s", 999_999_999_999_000),
        ] as [(String, Int64)])
    func readsDurations(_ text: String, _ millis: Int64) {
        #expect(DurationParser.millis(text) == millis)
    }

    @Test(arguments: [
        "", "s", "3600", "-s", "1.s", ".5s", "1.0000000001s", "1000000000000s", "1e3s", "+1s", " 1s", "1 s", "--1s", "1.5.5s", "１s",
    ])
    func refusesWhatIsNotADuration(_ text: String) {
        #expect(DurationParser.millis(text) == nil)
    }

}
