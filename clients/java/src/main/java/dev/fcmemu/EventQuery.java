package dev.fcmemu;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Filters (and an optional wait) for the event lists: immutable, each method returns a new query.
 *
 * <pre>{@code
 * project.events(EventQuery.all().kinds("expired").waitFor(2, Duration.ofSeconds(5)));
 * }</pre>
 */
public final class EventQuery {
    private final Map<String, String> params;
    private final Duration wait;

    private EventQuery(Map<String, String> params, Duration wait) {
        this.params = params;
        this.wait = wait;
    }

    /** @return a query with no filter: every kept event */
    public static EventQuery all() {
        return new EventQuery(Map.of(), null);
    }

    private EventQuery with(String key, String value, Duration newWait) {
        Map<String, String> copy = new LinkedHashMap<>(params);
        if (key != null) {
            copy.put(key, value);
        }
        return new EventQuery(copy, newWait);
    }

    /**
     * @param device a device id, name or token (project-wide lists only)
     * @return the query with the filter
     */
    public EventQuery device(String device) {
        return with("device", device, wait);
    }

    /**
     * @param token a registration token
     * @return the query with the filter
     */
    public EventQuery token(String token) {
        return with("token", token, wait);
    }

    /**
     * @param topic a topic name
     * @return the query with the filter
     */
    public EventQuery topic(String topic) {
        return with("topic", topic, wait);
    }

    /**
     * @param messageId a message id
     * @return the query with the filter
     */
    public EventQuery message(String messageId) {
        return with("message", messageId, wait);
    }

    /**
     * @param kinds event kinds, such as {@code stored}, {@code delivered}, {@code expired}
     * @return the query with the filter
     */
    public EventQuery kinds(String... kinds) {
        return with("kind", String.join(",", List.of(kinds)), wait);
    }

    /**
     * @param since the earliest time (the emulator's clock)
     * @return the query with the filter
     */
    public EventQuery since(Instant since) {
        return with("since", since.toString(), wait);
    }

    /**
     * @param until the latest time (the emulator's clock)
     * @return the query with the filter
     */
    public EventQuery until(Instant until) {
        return with("until", until.toString(), wait);
    }

    /**
     * @param limit the newest N only
     * @return the query with the limit
     */
    public EventQuery limit(int limit) {
        return with("limit", Integer.toString(limit), wait);
    }

    /**
     * The emulator answers once {@code count} events match, or after {@code timeout} (at most 5
     * minutes) with what there is; {@link EventList#satisfied()} says which.
     *
     * @param count how many events to wait for
     * @param timeout the longest wait (wall time)
     * @return the query with the wait
     */
    public EventQuery waitFor(int count, Duration timeout) {
        return with("waitFor", Integer.toString(count), timeout).with("timeout", Times.duration(timeout), timeout);
    }

    Map<String, String> params() {
        return params;
    }

    Duration waitTime() {
        return wait;
    }
}
