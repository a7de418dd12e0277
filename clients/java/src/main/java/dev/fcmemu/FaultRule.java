package dev.fcmemu;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A fault rule: which calls it matches ({@code api}, {@code route}, {@code project}, {@code target},
 * {@code device}, {@code nth}, {@code every}, {@code probability}, {@code count}, ...) and what it
 * does ({@code error}, {@code status}, {@code retryAfter}, {@code latency}, {@code reset},
 * {@code html502}, {@code drain}). See the control API's OpenAPI document for every key.
 *
 * <pre>{@code
 * client.addFault(FaultRule.of(Map.of("api", "v1", "count", 1), Map.of("error", "UNAVAILABLE")));
 * }</pre>
 *
 * @param id the rule's id (null for a new rule: the emulator gives one)
 * @param match which calls it applies to
 * @param action what it does
 */
public record FaultRule(String id, Map<String, Object> match, Map<String, Object> action) {
    /**
     * @param match which calls it applies to
     * @param action what it does
     * @return a new rule without an id
     */
    public static FaultRule of(Map<String, Object> match, Map<String, Object> action) {
        return new FaultRule(null, match, action);
    }

    static FaultRule fromJson(Map<String, Object> m) {
        return new FaultRule(Json.str(m, "id"), Json.obj(m, "match"), Json.obj(m, "action"));
    }

    Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (id != null) {
            out.put("id", id);
        }
        if (match != null) {
            out.put("match", match);
        }
        out.put("action", action);
        return out;
    }
}
