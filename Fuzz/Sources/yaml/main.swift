// SPDX-License-Identifier: Apache-2.0

// YAMLDocument: libyaml's parser under our composer, as scenario, config and fault files reach it.
// Whatever composes stays within the bounds (nodes, depth), names lines inside the file, composes
// the same a second time, and turns into JSON.

import FCMJSON
import FCMYAML
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Fuzz.bytes(start, count)
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = lineCount(text)
    guard let root = try? YAMLDocument.compose(text) else { return 0 }
    var visited = 0
    var deepest = 0
    func walk(_ node: YAMLNode, depth: Int) {
        visited += 1
        deepest = max(deepest, depth)
        Fuzz.check((1...lines + 1).contains(node.line), "line \(node.line) outside a file of \(lines) lines: \(Fuzz.preview(bytes))")
        switch node.content {
        case .scalar: break
        case .sequence(let items): for item in items { walk(item, depth: depth + 1) }
        case .mapping(let pairs):
            for pair in pairs {
                walk(pair.key, depth: depth + 1)
                walk(pair.value, depth: depth + 1)
            }
        }
    }
    walk(root, depth: 0)
    Fuzz.check(visited <= YAMLDocument.maxNodes, "\(visited) nodes composed, past \(YAMLDocument.maxNodes): \(Fuzz.preview(bytes))")
    Fuzz.check(deepest <= YAMLDocument.maxDepth, "nested \(deepest) deep, past \(YAMLDocument.maxDepth): \(Fuzz.preview(bytes))")
    let again = try? YAMLDocument.compose(text)
    Fuzz.check(again.map { $0.json == root.json } == true, "a second compose differs: \(Fuzz.preview(bytes))")
    _ = root.json.encoded()
    return 0
}

/// Lines as YAML counts them: LF, CR, CR LF, and (YAML 1.1) NEL, LS and PS each end one.
func lineCount(_ text: String) -> Int {
    var count = 1
    var afterCR = false
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": if !afterCR { count += 1 }
        case "\r", "\u{85}", "\u{2028}", "\u{2029}": count += 1
        default: break
        }
        afterCR = scalar == "\r"
    }
    return count
}
