package dev.fcmemu;

import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Events, oldest first, as an events list call returned them.
 *
 * @param events the events
 * @param satisfied for a read that waited: whether the count was reached; null without a wait
 */
public record EventList(List<Event> events, Boolean satisfied) implements Iterable<Event> {
    @Override
    public Iterator<Event> iterator() {
        return events.iterator();
    }

    /** @return the events' kinds, in order (handy in assertions) */
    public List<String> kinds() {
        return events.stream().map(Event::kind).collect(Collectors.toList());
    }

    /** @return how many events there are */
    public int size() {
        return events.size();
    }
}
