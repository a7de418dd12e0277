package dev.fcmemu;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** Conversions between Java's time types and the API's. */
final class Times {
    private Times() {}

    /** An RFC 3339 instant from the API, or null. */
    static Instant instant(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** A duration as the API takes it: {@code "2500ms"}. */
    static String duration(Duration d) {
        return Math.max(0, d.toMillis()) + "ms";
    }
}
