// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A directory of a test's own (tests run in parallel), removed by `cleanup`. Every one lies in a
/// directory this process made with mkdtemp (a fresh random name, mode 0700): no other local user
/// can guess it and fill it first, one look finds what a run left, and it goes when the process
/// exits, with whatever a test did not clean up.
public struct ScratchDirectory: Sendable {
    public let path: String

    /// `label` begins the directory's name, so what a failed test left says which test made it.
    public init(_ label: String = "scratch") throws {
        path = try Self.root.get() + "/" + label + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    }

    /// A path inside the directory (nothing is made there).
    public func sub(_ name: String) -> String { path + "/" + name }

    public func cleanup() { try? FileManager.default.removeItem(atPath: path) }

    /// Why the process's own directory could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// This process's directory, made once, on first use.
    private static let root: Result<String, Failure> = {
        var template = Array((FileManager.default.temporaryDirectory.path + "/fcm-emu-tests-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            return .failure(Failure(description: "mkdtemp in \(FileManager.default.temporaryDirectory.path): errno \(errno)"))
        }
        atexit { ScratchDirectory.removeRoot() }
        return .success(String(cString: made))
    }()

    private static func removeRoot() {
        if case .success(let path) = root { try? FileManager.default.removeItem(atPath: path) }
    }
}
