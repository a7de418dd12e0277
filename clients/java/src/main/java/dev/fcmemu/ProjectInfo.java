package dev.fcmemu;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A project as the emulator keeps it.
 *
 * @param id the project id
 * @param number the project number, which is the sender id
 * @param serverKeys the legacy API's server keys
 * @param createdAt when it was created
 * @param apiEnabled false while every v1 call of the project answers 403 SERVICE_DISABLED
 * @param raw the JSON it was read from
 */
public record ProjectInfo(String id, String number, List<String> serverKeys, Instant createdAt,
                          boolean apiEnabled, Map<String, Object> raw) {
    static ProjectInfo fromJson(Map<String, Object> m) {
        return new ProjectInfo(Json.str(m, "id"), Json.str(m, "number"), Json.strings(m, "serverKeys"),
                Times.instant(Json.str(m, "createdAt")), Json.bool(m, "apiEnabled", true), Map.copyOf(nonNull(m)));
    }

    static Map<String, Object> nonNull(Map<String, Object> m) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                out.put(k, v);
            }
        });
        return out;
    }
}
