package dev.fcmemu;

import java.time.Duration;
import java.util.List;

/**
 * A wait on a device's inbox failed: what was expected, on which device, why too few came as far
 * as the emulator knows ({@link #reasons()}), and every delivery the inbox held. An
 * {@link AssertionError}, so every test framework reports it as a failure.
 */
public class DeliveryAssertionError extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final transient List<Delivery> deliveries;
    private final int matched;
    private final List<String> reasons;

    DeliveryAssertionError(String expectation, Device device, Duration within, int matched, List<Delivery> deliveries) {
        this(expectation, device, within, matched, deliveries, List.of());
    }

    DeliveryAssertionError(String expectation, Device device, Duration within, int matched, List<Delivery> deliveries,
            List<String> reasons) {
        super(message(expectation, device, within, matched, deliveries, reasons));
        this.deliveries = List.copyOf(deliveries);
        this.matched = matched;
        this.reasons = List.copyOf(reasons);
    }

    private static String message(String expectation, Device device, Duration within, int matched, List<Delivery> deliveries,
            List<String> reasons) {
        StringBuilder out = new StringBuilder("expected ").append(expectation).append(" on ").append(device);
        if (within != null && !within.isZero()) {
            out.append(" within ").append(within.toMillis()).append(" ms");
        }
        out.append(", but ").append(matched).append(" matched");
        if (!reasons.isEmpty()) {
            out.append(": ").append(String.join("; ", reasons));
        }
        out.append("; ");
        if (deliveries.isEmpty()) {
            return out.append("the inbox was empty").toString();
        }
        out.append("the inbox held ").append(deliveries.size()).append(deliveries.size() == 1 ? " delivery:" : " deliveries:");
        int index = 1;
        for (Delivery d : deliveries) {
            String text = Json.write(d.raw());
            if (text.length() > 600) {
                text = text.substring(0, 600) + "…";
            }
            out.append("\n  ").append(index++).append(". ").append(text);
        }
        return out.toString();
    }

    /** @return every delivery the inbox held at the last read */
    public List<Delivery> deliveries() {
        return deliveries;
    }

    /**
     * @return why too few came: the device's newest outcome that lost or refused a message
     *     ("message 0:… was discarded: TTL 0 while the device was offline"), what it holds back
     *     ("held: device offline, 3 stored"), the nearest miss of the {@link Where}'s fields
     */
    public List<String> reasons() {
        return reasons;
    }

    /** @return how many of them matched */
    public int matched() {
        return matched;
    }
}
