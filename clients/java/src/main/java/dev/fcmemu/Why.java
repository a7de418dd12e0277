package dev.fcmemu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Why a wait failed, as far as the emulator knows: what it did with the device's messages (the
 * device's outcomes), what the device holds back, and the delivery nearest the {@link Where}'s
 * fields.
 */
final class Why {
    /** Outcomes that say nothing about a message going astray. */
    private static final Set<String> QUIET = Set.of("accepted", "delivered", "stored");
    /** Outcomes of a message accepted and then dropped: "message 0:17… was discarded: …". */
    private static final Set<String> OF_A_MESSAGE = Set.of("discarded", "collapsed", "evicted", "expired");

    private Why() {}

    /**
     * {@code GET …/devices/{device}/outcomes}; null when the emulator has no such route (an older
     * one), does not know the device, or cannot be asked: the failure is reported anyway.
     */
    static Map<String, Object> deviceOutcomes(Device device) {
        Client client = device.client();
        String path = "/projects/" + Client.segment(device.projectId()) + "/devices/" + Client.segment(device.id()) + "/outcomes";
        try {
            return client.request("GET", path, null, null, client.timeout()).json();
        } catch (FcmEmuException | IllegalArgumentException | ClassCastException unavailable) {
            return null;
        }
    }

    private static String held(Object state, long stored) {
        return stored > 0 ? "held: device " + (state == null ? "unknown" : state) + ", " + stored + " stored" : null;
    }

    /**
     * The newest outcome that lost or refused a message (outcomes are newest first, and a send comes
     * before the wait for it), then what the device holds back; without the outcomes route, what a
     * fresh read of the device says it holds.
     */
    static List<String> outcomeReasons(Device device) {
        List<String> reasons = new ArrayList<>();
        Map<String, Object> document = deviceOutcomes(device);
        String heldText = null;
        if (document != null) {
            for (Map<String, Object> outcome : Json.objects(document, "outcomes")) {
                String kind = String.valueOf(outcome.get("kind"));
                if (QUIET.contains(kind)) {
                    continue;
                }
                String summary = Json.str(outcome, "summary");
                String text = summary == null || summary.isEmpty() ? kind : summary;
                String messageId = Json.str(outcome, "messageId");
                reasons.add(messageId != null && OF_A_MESSAGE.contains(kind) ? "message " + messageId + " was " + text : text);
                break;
            }
            heldText = held(Json.str(Json.obj(document, "device"), "state"), Json.num(document, "stored", 0));
            // The server's words, when it says why it holds them (offline, Doze, …).
            String serverHeld = Json.objects(document, "outcomes").stream().filter(o -> "stored".equals(o.get("kind"))).findFirst()
                    .map(o -> Json.str(o, "summary")).orElse(null);
            if (heldText != null && serverHeld != null && serverHeld.startsWith("held: ")) {
                heldText = serverHeld;
            }
        } else {
            try {
                Device now = device.client().getDevice(device.projectId(), device.id());
                heldText = held(now.raw().get("state"), now.storedCount());
            } catch (FcmEmuException unavailable) {
                // the device is gone or the emulator cannot be asked: nothing more to say
            }
        }
        if (heldText != null) {
            reasons.add(heldText);
        }
        return reasons;
    }

    /** The delivery with the fewest differing fields of {@code where}, and its first difference. */
    static String nearestMiss(Where where, List<Delivery> deliveries) {
        List<Where.Field> fields = where.fields();
        if (fields.isEmpty()) {
            return null;
        }
        Delivery best = null;
        List<Where.Field> bestDiffering = null;
        for (Delivery delivery : deliveries) {
            if (where.test(delivery)) {
                continue;
            }
            List<Where.Field> differing = fields.stream().filter(f -> f.differs(delivery)).toList();
            if (!differing.isEmpty() && (bestDiffering == null || differing.size() < bestDiffering.size())) {
                best = delivery;
                bestDiffering = differing;
            }
        }
        if (best == null) {
            return null;
        }
        String difference = bestDiffering.get(0).difference(best);
        if (fields.size() == 1) {
            return "the nearest delivery has " + difference;
        }
        if (bestDiffering.size() == 1) {
            return "a delivery matched all but " + difference;
        }
        return "the nearest delivery differs in " + bestDiffering.size() + " of " + fields.size() + " fields, first " + difference;
    }

    /** The device's outcomes, then the nearest miss. */
    static List<String> noneCame(Device device, Where where, List<Delivery> deliveries) {
        List<String> reasons = outcomeReasons(device);
        String miss = nearestMiss(where, deliveries);
        if (miss != null) {
            reasons.add(miss);
        }
        return reasons;
    }
}
