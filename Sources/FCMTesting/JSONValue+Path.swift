// SPDX-License-Identifier: Apache-2.0

import FCMJSON

extension JSONValue {
    /// Follows a dotted path of keys and array indexes: `devices.0.token`, so a test names the
    /// field it checks as the API's documentation does.
    public func at(_ path: String) -> JSONValue? {
        var current: JSONValue? = self
        for part in path.split(separator: ".") {
            if let index = Int(part), let items = current?.arrayValue {
                current = index < items.count ? items[index] : nil
            } else {
                current = current?[String(part)]
            }
        }
        return current
    }

    public func string(_ path: String) -> String? { at(path)?.stringValue }
}
