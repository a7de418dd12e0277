package dev.fcmemu;

import java.time.Instant;
import java.util.Map;

/**
 * One entry of the event log.
 *
 * @param sequence its sequence number (the event stream's id)
 * @param project the project
 * @param time when it happened (the emulator's clock)
 * @param kind what happened: {@code accepted}, {@code stored}, {@code delivered}, {@code expired}, ...
 * @param device the device id, if any
 * @param messageId the message id, if any
 * @param target the send's target (token, topic, condition), if any
 * @param detail more words, if any
 * @param raw the JSON it was read from
 */
public record Event(long sequence, String project, Instant time, String kind, String device, String messageId,
                    String target, String detail, Map<String, Object> raw) {
    static Event fromJson(Map<String, Object> m) {
        return new Event(Json.num(m, "sequence", 0), Json.str(m, "project"), Times.instant(Json.str(m, "time")),
                Json.str(m, "kind"), Json.str(m, "device"), Json.str(m, "messageId"), Json.str(m, "target"),
                Json.str(m, "detail"), java.util.Collections.unmodifiableMap(m));
    }
}
