package dev.fcmemu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which deliveries a wait counts: a predicate with a description for failure messages.
 *
 * <pre>{@code
 * Where.data("score", "3-0")                                  // a data field, on any platform
 * Where.field("payload.notification.title", "Goal!")          // a dotted path of the inbox entry
 * Where.fields(Map.of("priority", "high", "api", "v1"))        // a subset of the entry's JSON
 * Where.matching("a silent push", d -> d.payload().get("notification") == null)
 * }</pre>
 */
public final class Where implements Predicate<Delivery> {
    private static final Object MISSING = new Object();

    private final String description;
    private final Predicate<Delivery> predicate;
    private final List<Field> fields;

    /**
     * One field a selector asks for, read from a delivery ({@link #MISSING} when absent): what a
     * failure compares to name the nearest miss.
     */
    record Field(String path, Object wanted, Function<Delivery, Object> read) {
        boolean differs(Delivery delivery) {
            Object got = read.apply(delivery);
            return got == MISSING || !subset(wanted, got);
        }

        String difference(Delivery delivery) {
            Object got = read.apply(delivery);
            return path + ": " + (got == MISSING ? "missing" : Json.write(got)) + ", wanted " + Json.write(wanted);
        }
    }

    private Where(String description, Predicate<Delivery> predicate) {
        this(description, predicate, List.of());
    }

    private Where(String description, Predicate<Delivery> predicate, List<Field> fields) {
        this.description = description;
        this.predicate = predicate;
        this.fields = List.copyOf(fields);
    }

    /** @return the fields this selector asks for; none for a predicate */
    List<Field> fields() {
        return fields;
    }

    /** The leaves of a {@link #fields} map, each read as {@link #subset} reads its key. */
    private static void leaves(Map<?, ?> spec, List<String> keys, List<Field> out) {
        for (Map.Entry<?, ?> entry : spec.entrySet()) {
            List<String> path = new ArrayList<>(keys);
            path.add(String.valueOf(entry.getKey()));
            if (entry.getValue() instanceof Map && !((Map<?, ?>) entry.getValue()).isEmpty()) {
                leaves((Map<?, ?>) entry.getValue(), path, out);
            } else {
                out.add(new Field(String.join(".", path), entry.getValue(), d -> resolve(d.raw(), path)));
            }
        }
    }

    private static Object resolve(Object data, List<String> keys) {
        for (String key : keys) {
            if (!(data instanceof Map)) {
                return MISSING;
            }
            Map<?, ?> node = (Map<?, ?>) data;
            data = node.containsKey(key) ? node.get(key) : key.contains(".") ? find(node, key) : MISSING;
            if (data == MISSING) {
                return MISSING;
            }
        }
        return data;
    }

    /** @return every delivery */
    public static Where any() {
        return new Where("any delivery", d -> true);
    }

    /**
     * @param description how failure messages name it
     * @param predicate which deliveries count
     * @return the selector
     */
    public static Where matching(String description, Predicate<Delivery> predicate) {
        return new Where("a delivery matching " + description, Objects.requireNonNull(predicate));
    }

    /**
     * Deliveries whose data field {@code key} is {@code value}, wherever the platform puts data
     * ({@link Delivery#data()}).
     *
     * @param key the data key
     * @param value the expected value
     * @return the selector
     */
    public static Where data(String key, String value) {
        return new Where("a delivery with data " + key + "=" + Json.write(value), d -> Objects.equals(d.data().get(key), value),
                List.of(new Field("data." + key, value, d -> d.data().containsKey(key) ? d.data().get(key) : MISSING)));
    }

    /**
     * Deliveries whose inbox entry has {@code value} at the dotted {@code path}, such as
     * {@code "payload.data.score"}. Numbers compare by value ({@code 1} equals {@code 1L}).
     *
     * @param path a dotted path into the entry's JSON
     * @param value the expected value (a Map is matched as a subset)
     * @return the selector
     */
    public static Where field(String path, Object value) {
        return new Where("a delivery with " + path + "=" + Json.write(value), d -> subset(value, lookup(d.raw(), path)),
                List.of(new Field(path, value, d -> find(d.raw(), path))));
    }

    /**
     * Deliveries whose inbox entry contains {@code fields}: a subset match, recursive for nested
     * maps, where a key with dots ({@code "payload.data.score"}) is a path.
     *
     * @param fields the expected fields
     * @return the selector
     */
    public static Where fields(Map<String, ?> fields) {
        List<Field> leaves = new ArrayList<>();
        leaves(fields, List.of(), leaves);
        return new Where("a delivery matching " + Json.write(fields), d -> subset(fields, d.raw()), leaves);
    }

    /**
     * @param other another selector
     * @return deliveries both select
     */
    public Where and(Where other) {
        List<Field> both = new ArrayList<>(fields);
        both.addAll(other.fields);
        return new Where(description + " and " + other.description, d -> test(d) && other.test(d), both);
    }

    @Override
    public boolean test(Delivery delivery) {
        return predicate.test(delivery);
    }

    /** @return how failure messages name it */
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return description;
    }

    static Object lookup(Object data, String path) {
        Object found = find(data, path);
        return found == MISSING ? null : found;
    }

    private static Object find(Object data, String path) {
        for (String part : path.split("\\.", -1)) {
            if (data instanceof Map && ((Map<?, ?>) data).containsKey(part)) {
                data = ((Map<?, ?>) data).get(part);
            } else if (data instanceof List && part.matches("\\d{1,9}") && Integer.parseInt(part) < ((List<?>) data).size()) {
                data = ((List<?>) data).get(Integer.parseInt(part));
            } else {
                return MISSING;
            }
        }
        return data;
    }

    private static boolean subset(Object expected, Object actual) {
        if (expected instanceof Map) {
            if (!(actual instanceof Map)) {
                return false;
            }
            Map<?, ?> have = (Map<?, ?>) actual;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) expected).entrySet()) {
                String key = String.valueOf(entry.getKey());
                Object got = have.containsKey(key) ? have.get(key) : key.contains(".") ? find(have, key) : MISSING;
                if (got == MISSING || !subset(entry.getValue(), got)) {
                    return false;
                }
            }
            return true;
        }
        if (expected instanceof Number && actual instanceof Number) {
            return new java.math.BigDecimal(expected.toString()).compareTo(new java.math.BigDecimal(actual.toString())) == 0;
        }
        return Objects.equals(expected, actual);
    }
}
