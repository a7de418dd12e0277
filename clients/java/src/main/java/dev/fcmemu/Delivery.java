package dev.fcmemu;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One thing an app received: a message ({@link #payload()} as the platform renders it: Android's
 * {@code RemoteMessage}, iOS {@code userInfo}, a web push payload) or a {@code deletedMessages} notice.
 *
 * @param kind {@code message} or {@code deletedMessages}
 * @param messageId the message id
 * @param time when it was delivered (the emulator's clock)
 * @param handling who handled it: {@code app} or {@code system} (tray)
 * @param callback the app callback that ran, such as {@code onMessageReceived}
 * @param appState the app's state at delivery
 * @param priority the priority it was delivered with
 * @param originalPriority the priority it was sent with
 * @param collapseKey the collapse key
 * @param ttl the time to live, such as {@code 2419200s}
 * @param api the API it came through: {@code v1}, {@code legacy} or {@code xmpp}
 * @param payload what the app's callback receives
 * @param raw the JSON of the inbox entry, as the API returns it
 */
public record Delivery(String kind, String messageId, Instant time, String handling, String callback,
                       String appState, String priority, String originalPriority, String collapseKey, String ttl,
                       String api, Map<String, Object> payload, Map<String, Object> raw) {
    private static final Set<String> NOT_DATA = Set.of("aps", "fcm_options", "gcm.message_id");

    static Delivery fromJson(Map<String, Object> m) {
        return new Delivery(Json.str(m, "kind"), Json.str(m, "messageId"), Times.instant(Json.str(m, "time")),
                Json.str(m, "handling"), Json.str(m, "callback"), Json.str(m, "appState"), Json.str(m, "priority"),
                Json.str(m, "originalPriority"), Json.str(m, "collapseKey"), Json.str(m, "ttl"), Json.str(m, "api"),
                Json.obj(m, "payload"), java.util.Collections.unmodifiableMap(m));
    }

    /**
     * The message's data fields, wherever the platform puts them (Android's and the web's
     * {@code data}, iOS's top-level keys besides {@code aps}).
     *
     * @return the data fields, as strings
     */
    public Map<String, String> data() {
        Map<String, String> out = new LinkedHashMap<>();
        Object data = payload.get("data");
        if (data instanceof Map) {
            ((Map<?, ?>) data).forEach((k, v) -> out.put(String.valueOf(k), v == null ? null : v.toString()));
            return out;
        }
        payload.forEach((k, v) -> {
            if (!NOT_DATA.contains(k) && !(v instanceof Map) && !(v instanceof java.util.List)) {
                out.put(k, v == null ? null : v.toString());
            }
        });
        return out;
    }

    /**
     * The value at a dotted path of the inbox entry's JSON, such as {@code "payload.data.score"}
     * or {@code "payload.notification.title"} (a list index may be a path segment).
     *
     * @param path the dotted path
     * @return the value, or null when there is none
     */
    public Object get(String path) {
        return Where.lookup(raw, path);
    }

    @Override
    public String toString() {
        return Json.write(raw);
    }
}
