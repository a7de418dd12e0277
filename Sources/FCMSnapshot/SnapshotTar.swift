// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A snapshot directory as one ustar archive, for `POST /emulator/v1:export` with
/// `Accept: application/x-tar` and `POST /emulator/v1:import` with a tar body. Only the files a
/// snapshot has, flat (an archive made with `tar -C dir .` or holding one top directory is read
/// too); anything else in an archive is refused, so an archive never writes outside its folder.
package enum SnapshotTar {
    static let block = 512

    /// The names a snapshot archive may hold.
    static var allowedNames: Set<String> {
        Set(SnapshotManifest.allFiles + ["manifest.json"])
    }

    /// The archive of a snapshot directory: manifest first, then the files in reading order.
    package static func archive(directory: String) throws -> [UInt8] {
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        let order = ["manifest.json"] + SnapshotManifest.allFiles
        var out: [UInt8] = []
        for name in order where present.contains(name) {
            let data = try readFile(directory + "/" + name)
            // ustar sizes have 11 octal digits: 8 GiB per file.
            guard data.count < 1 << 33 else { throw SnapshotError(file: name, line: nil, "is too large for a tar archive (8 GiB)") }
            out += header(name: name, size: data.count)
            out += data
            out += [UInt8](repeating: 0, count: (block - data.count % block) % block)
        }
        out += [UInt8](repeating: 0, count: 2 * block)
        return out
    }

    /// A snapshot file's bytes, read without following a link (nothing a snapshot holds is one).
    private static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SnapshotIOError("open", path, errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw SnapshotIOError("read", path, errno) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Writes the archive's files into `directory` (which must exist and be empty).
    package static func extract(_ bytes: [UInt8], into directory: String) throws(SnapshotError) {
        func refuse(_ message: String) -> SnapshotError { SnapshotError(file: "the tar archive", line: nil, message) }
        var offset = 0
        var seen = Set<String>()
        while offset + block <= bytes.count {
            let header = bytes[offset..<offset + block]
            if header.allSatisfy({ $0 == 0 }) {
                // The end marker (POSIX ustar: zero blocks to the end, padding included);
                // anything after it is not a snapshot's, and is refused rather than ignored.
                guard bytes[offset...].allSatisfy({ $0 == 0 }) else { throw refuse("bytes follow the archive's end marker") }
                return
            }
            guard checksumMatches(header) else { throw refuse("a header's checksum is wrong at byte \(offset)") }
            guard let size = octal(header.dropFirst(124).prefix(12)), size >= 0 else { throw refuse("a header's size is unreadable") }
            let type = header[header.startIndex + 156]
            let dataStart = offset + block
            guard size <= bytes.count - dataStart else { throw refuse("an entry runs past the end of the archive") }
            offset = dataStart + (size + block - 1) / block * block
            let name = entryName(header)
            switch type {
            case UInt8(ascii: "5"):
                continue  // a directory entry (`./`, `name/`): the files are what counts
            case UInt8(ascii: "0"), 0:
                break
            default:
                throw refuse("entry \"\(name)\" is not a regular file")
            }
            guard let file = flatName(name), allowedNames.contains(file) else {
                throw refuse("entry \"\(name)\" is not a file of a snapshot")
            }
            guard seen.insert(file).inserted else { throw refuse("entry \"\(file)\" appears twice") }
            let data = Data(bytes[dataStart..<dataStart + size])
            guard FileManager.default.createFile(atPath: directory + "/" + file, contents: data) else {
                throw refuse("cannot write \(file)")
            }
        }
        guard offset >= bytes.count || bytes[offset...].allSatisfy({ $0 == 0 }) else { throw refuse("the archive is cut short") }
    }

    /// `manifest.json`, `./manifest.json` or `snap/manifest.json` to `manifest.json`; nil for deeper
    /// paths or `..`.
    private static func flatName(_ name: String) -> String? {
        var parts = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if parts.first == "." { parts.removeFirst() }
        guard !parts.contains(".."), let last = parts.last, parts.count <= 2 else { return nil }
        return last
    }

    private static func entryName(_ header: ArraySlice<UInt8>) -> String {
        func field(_ from: Int, _ count: Int) -> String {
            let raw = header.dropFirst(from).prefix(count)
            return String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let name = field(0, 100)
        let prefix = field(345, 155)
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    private static func octal(_ field: ArraySlice<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        for b in field {
            if b == 0 || b == 32 {
                if digits > 0 { break } else { continue }
            }
            guard b >= 48, b <= 55, value < Int.max >> 3 else { return nil }
            value = value << 3 | Int(b - 48)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    private static func checksumMatches(_ header: ArraySlice<UInt8>) -> Bool {
        guard let stored = octal(header.dropFirst(148).prefix(8)) else { return false }
        var sum = 0
        for (i, b) in header.enumerated() { sum += (148..<156).contains(i) ? 32 : Int(b) }
        return sum == stored
    }

    private static func header(name: String, size: Int) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: block)
        func put(_ text: String, at: Int) {
            for (i, b) in text.utf8.enumerated() { h[at + i] = b }
        }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        let octalSize = String(size, radix: 8)
        put(String(repeating: "0", count: max(0, 11 - octalSize.count)) + octalSize, at: 124)
        put("00000000000", at: 136)
        h[156] = UInt8(ascii: "0")
        put("ustar", at: 257)
        put("00", at: 263)
        for i in 148..<156 { h[i] = 32 }
        let sum = h.reduce(0) { $0 + Int($1) }
        let text = String(sum, radix: 8)
        put(String(repeating: "0", count: max(0, 6 - text.count)) + text, at: 148)
        h[154] = 0
        h[155] = 32
        return h
    }
}
