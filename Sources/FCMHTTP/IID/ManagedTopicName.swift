// SPDX-License-Identifier: Apache-2.0

import FCMCore

/// A topic name as topic management receives it. Node, Go and Java accept
/// `^(/topics/)?(private/)?[a-zA-Z0-9-_.~%]+$` in subscribe and unsubscribe and send it with
/// `/topics/` prepended (node `validator.isTopic`, go `topicNamePattern`, java
/// `FirebaseMessaging.checkTopic`), so `/topics/private/news` reaches IID as is. Sends cannot
/// name `private/news` (every SDK checks `^[a-zA-Z0-9-_.~%]+$` there), so the emulator treats
/// `private/` as a marker and files the subscription under the bare name (README, emulator choices).
enum ManagedTopicName {
    /// The bare topic name, or nil when the text is not a topic name topic management accepts.
    static func bare(_ text: String) -> String? {
        var name = Substring(text)
        if name.hasPrefix("/topics/") { name = name.dropFirst("/topics/".count) }
        if name.hasPrefix("private/") { name = name.dropFirst("private/".count) }
        return IdentifierShape.isValidTopicName(String(name)) ? String(name) : nil
    }
}
