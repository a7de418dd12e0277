package dev.fcmemu;

import java.util.Iterator;
import java.util.List;

/**
 * A device's inbox: what the app received, oldest first.
 *
 * @param device the device as the inbox call described it (may be null)
 * @param deliveries the deliveries, oldest first
 * @param satisfied for a read that waited ({@code waitFor}): whether the count was reached (true)
 *     or the wait timed out (false); null for a plain read
 */
public record Inbox(Device device, List<Delivery> deliveries, Boolean satisfied) implements Iterable<Delivery> {
    @Override
    public Iterator<Delivery> iterator() {
        return deliveries.iterator();
    }

    /** @return how many deliveries the inbox holds */
    public int size() {
        return deliveries.size();
    }
}
