// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Path text, as `NSString`'s path methods read it, and what a failed file call says: full
/// Foundation has them, and with it ICU's 30 MB (docs/development.md, "The binary").
package enum FilePaths {
    /// `$TMPDIR`, else `/tmp`, with a trailing `/`, as `NSTemporaryDirectory()` answers.
    package static var temporaryDirectory: String {
        var directory = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if directory.isEmpty { directory = "/tmp" }
        return directory.hasSuffix("/") ? directory : directory + "/"
    }

    /// A failed file call's reason as a person reads it: the C library's words for its errno
    /// ("No such file or directory"), where `localizedDescription` needs full Foundation.
    package static func reason(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return String(cString: strerror(ENOENT))
            case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
            case .fileReadInapplicableStringEncoding: return "not UTF-8 text"
            default: break
            }
        }
        return "\(error)"
    }

    /// Everything before the last `/` (trailing ones ignored): "" for a bare name, "/" for the root.
    package static func parent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The part after the last `/` (trailing ones ignored).
    package static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/" else { return "/" }
        return String(trimmed.split(separator: "/").last ?? trimmed)
    }
}
