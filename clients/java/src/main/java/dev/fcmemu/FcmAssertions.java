package dev.fcmemu;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Waits and assertions on what a simulated device received, for JUnit or any test framework.
 *
 * <p>They wait with the inbox's own server-side wait ({@code waitFor}), never by sleeping, and
 * fail with a {@link DeliveryAssertionError} that says why none came, as far as the emulator knows
 * (the device's outcomes, what it holds back, the nearest miss), and lists what the inbox did hold. The wait is wall
 * time; on a paused or virtual clock, use the {@code afterAdvancing} forms, which move the
 * emulator's clock first (firing TTL expiry, Doze windows and latencies) and take no wall time.
 *
 * <pre>{@code
 * import static dev.fcmemu.FcmAssertions.*;
 *
 * Delivery d = waitForDelivery(phone, Where.data("score", "3-0"));
 * assertNothingDelivered(tablet);
 * waitForDeliveries(phone, 2, Where.any(), Duration.ofSeconds(5));
 * }</pre>
 */
public final class FcmAssertions {
    /** How long the waits for deliveries wait by default (wall time). */
    public static final Duration DEFAULT_WITHIN = Duration.ofSeconds(10);
    private static final Duration MAX_SERVER_WAIT = Duration.ofMinutes(5);

    private FcmAssertions() {}

    /**
     * Reads the inbox until {@code want} deliveries match or {@code within} passes; returns every
     * delivery of the last read. Each round waits, server side, for one more delivery.
     */
    private static List<Delivery> collect(Device device, Where where, int want, Duration within) {
        Client client = device.client();
        long deadline = System.nanoTime() + within.toNanos();
        Inbox inbox = client.inbox(device.projectId(), device.id());
        while (true) {
            if (inbox.deliveries().stream().filter(where).count() >= want) {
                return inbox.deliveries();
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return inbox.deliveries();
            }
            Duration wait = Duration.ofNanos(remaining);
            if (wait.compareTo(MAX_SERVER_WAIT) > 0) {
                wait = MAX_SERVER_WAIT;
            }
            if (wait.toMillis() == 0) {
                wait = Duration.ofMillis(1);
            }
            inbox = client.inbox(device.projectId(), device.id(), inbox.size() + 1, wait);
        }
    }

    private static List<Delivery> matching(List<Delivery> deliveries, Where where) {
        return deliveries.stream().filter(where).collect(Collectors.toList());
    }

    /**
     * Waits for any delivery on {@code device}, for {@link #DEFAULT_WITHIN}.
     *
     * @param device a device read through a {@link Client}
     * @return the first delivery
     * @throws DeliveryAssertionError when none came in time
     */
    public static Delivery waitForDelivery(Device device) {
        return waitForDelivery(device, Where.any(), DEFAULT_WITHIN);
    }

    /**
     * Waits for a delivery matching {@code where}, for {@link #DEFAULT_WITHIN}.
     *
     * @param device a device read through a {@link Client}
     * @param where which deliveries count
     * @return the first matching delivery
     * @throws DeliveryAssertionError when none came in time
     */
    public static Delivery waitForDelivery(Device device, Where where) {
        return waitForDelivery(device, where, DEFAULT_WITHIN);
    }

    /**
     * Waits until {@code device}'s inbox holds a delivery matching {@code where}.
     *
     * @param device a device read through a {@link Client}
     * @param where which deliveries count
     * @param within how long to wait (wall time)
     * @return the first matching delivery
     * @throws DeliveryAssertionError when none came in time
     */
    public static Delivery waitForDelivery(Device device, Where where, Duration within) {
        List<Delivery> deliveries = collect(device, where, 1, within);
        List<Delivery> found = matching(deliveries, where);
        if (found.isEmpty()) {
            throw new DeliveryAssertionError(where.description(), device, within, 0, deliveries,
                    Why.noneCame(device, where, deliveries));
        }
        return found.get(0);
    }

    /**
     * Waits until exactly {@code count} deliveries match {@code where} (it fails if more have
     * arrived by the time {@code count} did).
     *
     * @param device a device read through a {@link Client}
     * @param count how many
     * @param where which deliveries count
     * @param within how long to wait (wall time)
     * @return the matching deliveries, oldest first
     * @throws DeliveryAssertionError when not exactly {@code count} matched in time
     */
    public static List<Delivery> waitForDeliveries(Device device, int count, Where where, Duration within) {
        if (count == 0) {
            assertNothingDelivered(device, where, within);
            return List.of();
        }
        List<Delivery> deliveries = collect(device, where, count, within);
        List<Delivery> found = matching(deliveries, where);
        if (found.size() != count) {
            throw new DeliveryAssertionError(count + " deliveries (" + where.description() + ")", device, within,
                    found.size(), deliveries, found.size() < count ? Why.noneCame(device, where, deliveries) : List.of());
        }
        return found;
    }

    /**
     * Asserts that exactly {@code count} deliveries match {@code where} now (one read, no wait).
     *
     * @param device a device read through a {@link Client}
     * @param count how many
     * @param where which deliveries count
     * @return the matching deliveries
     * @throws DeliveryAssertionError when another number matches
     */
    public static List<Delivery> assertDeliveredCount(Device device, int count, Where where) {
        List<Delivery> deliveries = device.inbox().deliveries();
        List<Delivery> found = matching(deliveries, where);
        if (found.size() != count) {
            throw new DeliveryAssertionError(count + " deliveries (" + where.description() + ")", device, Duration.ZERO,
                    found.size(), deliveries);
        }
        return found;
    }

    /**
     * Asserts that {@code device}'s inbox holds no delivery now (one read, no wait).
     *
     * @param device a device read through a {@link Client}
     * @throws DeliveryAssertionError when one is there
     */
    public static void assertNothingDelivered(Device device) {
        assertNothingDelivered(device, Where.any(), Duration.ZERO);
    }

    /**
     * Asserts that no delivery matching {@code where} arrives within {@code within} (wall time,
     * through the inbox's wait; {@link Duration#ZERO} looks once, now). To prove that something
     * is <em>never</em> delivered, use {@link #assertNothingDeliveredAfterAdvancing}.
     *
     * @param device a device read through a {@link Client}
     * @param where which deliveries count
     * @param within how long to watch
     * @throws DeliveryAssertionError when one arrives
     */
    public static void assertNothingDelivered(Device device, Where where, Duration within) {
        List<Delivery> deliveries = collect(device, where, 1, within);
        List<Delivery> found = matching(deliveries, where);
        if (!found.isEmpty()) {
            throw new DeliveryAssertionError("no " + where.description().replaceFirst("^(a|any) ", ""), device,
                    within, found.size(), deliveries);
        }
    }

    /**
     * Moves the emulator's clock forward by {@code by} (firing everything due on the way), then
     * asserts that no delivery matching {@code where} is in the inbox: "nothing within 15
     * minutes" with no wall time spent, on an emulator whose clock is paused.
     *
     * @param device a device read through a {@link Client}
     * @param where which deliveries count
     * @param by how far to move the clock
     * @throws DeliveryAssertionError when one was delivered
     */
    public static void assertNothingDeliveredAfterAdvancing(Device device, Where where, Duration by) {
        device.client().advanceClock(by);
        assertNothingDelivered(device, where, Duration.ZERO);
    }

    /**
     * Moves the emulator's clock forward by {@code by}, then waits (wall time, {@code within}) for
     * a delivery matching {@code where}: a Doze maintenance window, a latency.
     *
     * @param device a device read through a {@link Client}
     * @param where which deliveries count
     * @param by how far to move the clock
     * @param within how long to wait afterwards (wall time)
     * @return the first matching delivery
     * @throws DeliveryAssertionError when none came
     */
    public static Delivery waitForDeliveryAfterAdvancing(Device device, Where where, Duration by, Duration within) {
        device.client().advanceClock(by);
        return waitForDelivery(device, where, within);
    }
}
