package dev.fcmemu;

import java.time.Instant;
import java.util.Map;

/**
 * The emulator's clock, on which TTL expiry, Doze windows and latencies run.
 *
 * @param now the emulator's time
 * @param mode {@code wall} or {@code virtual}
 * @param paused whether it is paused (time then moves only with advance)
 * @param speed its speed relative to the wall
 * @param pendingTimers how many timers are pending
 * @param raw the JSON it was read from
 */
public record Clock(Instant now, String mode, boolean paused, double speed, long pendingTimers,
                   Map<String, Object> raw) {
    static Clock fromJson(Map<String, Object> m) {
        return new Clock(Times.instant(Json.str(m, "now")), Json.str(m, "mode"), Json.bool(m, "paused", false),
                Json.dbl(m, "speed", 1), Json.num(m, "pendingTimers", 0), java.util.Collections.unmodifiableMap(m));
    }
}
