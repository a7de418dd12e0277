// SPDX-License-Identifier: Apache-2.0

import FCMJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the harnesses share: input helpers and the checks that turn a wrong answer into a crash
/// libFuzzer can report (a trap with a message on stderr, so the reproducer explains itself).
extension Substring {
    fileprivate var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}

public enum Fuzz {
    /// The input as an array (libFuzzer's buffer is only valid during the call).
    public static func bytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// A client's byte stream cut into reads by a harness's cut byte, as `xmpp` and `http1` read
    /// it: 0 gives one byte a read; any other value one cut, at that fraction of 256 of its length.
    public static func reads(_ stream: ArraySlice<UInt8>, cut mode: UInt8) -> [ArraySlice<UInt8>] {
        if mode == 0 { return stream.indices.map { stream[$0...$0] } }
        let cut = stream.startIndex + stream.count * Int(mode) / 256
        return [stream[..<cut], stream[cut...]]
    }

    /// Writes a line to stderr, unbuffered (a crash follows soon).
    public static func log(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// Fails the run: prints why, then traps.
    public static func fail(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        let text = "fcm-emu fuzz invariant broken (\(file):\(line)): \(message())\n"
        log(text)
        fatalError(text, file: file, line: line)
    }

    /// Checks a condition that must hold for every input.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        if !condition { fail(message(), file: file, line: line) }
    }

    /// Whether an environment variable is set to a non-empty value other than 0.
    public static func flag(_ name: String) -> Bool {
        guard let value = getenv(name) else { return false }
        let text = String(cString: value)
        return !text.isEmpty && text != "0"
    }

    /// Whether the named check is switched off: FCM_FUZZ_SKIP is a comma-separated list of check
    /// names, to keep fuzzing past a known, reported bug until its fix lands.
    public static func skips(_ check: String) -> Bool {
        guard let value = getenv("FCM_FUZZ_SKIP") else { return false }
        return String(cString: value).split(separator: ",").contains { $0.trimmingPrefixSpaces == check }
    }

    /// A short, printable view of some bytes for failure messages.
    public static func preview(_ bytes: some Collection<UInt8>, limit: Int = 300) -> String {
        var out = ""
        for b in bytes.prefix(limit) {
            if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") { out.append(Character(Unicode.Scalar(b))) } else { out += "\\x" + String(b, radix: 16) }
        }
        return bytes.count > limit ? out + "…(\(bytes.count) bytes)" : out
    }

    /// Splits at the first occurrence of `separator`: (before, after), or nil when absent.
    public static func split(_ bytes: [UInt8], at separator: UInt8) -> ([UInt8], [UInt8])? {
        guard let i = bytes.firstIndex(of: separator) else { return nil }
        return (Array(bytes[..<i]), Array(bytes[(i + 1)...]))
    }

    /// Splits an input into at most `limit` requests at blank lines (`\n\n`), for harnesses that
    /// play a short conversation per input (the rest of the input stays in the last request).
    public static func requests(_ bytes: [UInt8], limit: Int = 4) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var rest = bytes[...]
        while out.count < limit - 1, let i = rest.indices.first(where: { rest[$0] == 0x0A && $0 + 1 < rest.endIndex && rest[$0 + 1] == 0x0A }) {
            out.append(Array(rest[..<i]))
            rest = rest[(i + 2)...]
        }
        out.append(Array(rest))
        return out
    }

    /// Checks that a JSON document the emulator wrote reads back with its own strict parser.
    public static func checkJSON(_ body: [UInt8], what: @autoclosure () -> String) {
        do {
            _ = try JSONParser.parse(body, maxDepth: 512)
        } catch {
            fail("\(what()) is not valid JSON (\(error)): \(preview(body))")
        }
    }
}
