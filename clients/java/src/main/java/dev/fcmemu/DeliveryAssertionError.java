package dev.fcmemu;

import java.time.Duration;
import java.util.List;

/**
 * A wait on a device's inbox failed: what was expected, on which device, and every delivery the
 * inbox held. An {@link AssertionError}, so every test framework reports it as a failure.
 */
public class DeliveryAssertionError extends AssertionError {
    private static final long serialVersionUID = 1L;

    private final transient List<Delivery> deliveries;
    private final int matched;

    DeliveryAssertionError(String expectation, Device device, Duration within, int matched, List<Delivery> deliveries) {
        super(message(expectation, device, within, matched, deliveries));
        this.deliveries = List.copyOf(deliveries);
        this.matched = matched;
    }

    private static String message(String expectation, Device device, Duration within, int matched, List<Delivery> deliveries) {
        StringBuilder out = new StringBuilder("expected ").append(expectation).append(" on ").append(device);
        if (within != null && !within.isZero()) {
            out.append(" within ").append(within.toMillis()).append(" ms");
        }
        out.append(", but ").append(matched).append(" matched; ");
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

    /** @return how many of them matched */
    public int matched() {
        return matched;
    }
}
