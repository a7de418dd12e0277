package dev.fcmemu;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A simulated device (one app install), as the API last described it.
 *
 * <p>A Device read through a {@link Client} is bound to it, so it can be driven directly:
 * {@code phone.setState(DeviceState.DOZE)}, {@code phone.waitForDelivery(Where.data("score", "3-0"))}.
 * The methods that change it return the device as the API then describes it; this object stays as
 * it was (it is immutable).
 */
public final class Device {
    private final Client client;
    private final Map<String, Object> raw;

    Device(Client client, Map<String, Object> raw) {
        this.client = Objects.requireNonNull(client);
        this.raw = java.util.Collections.unmodifiableMap(raw);
    }

    /** @return the device's id within its project */
    public String id() {
        return Json.str(raw, "id");
    }

    /** @return its name, or null */
    public String name() {
        return Json.str(raw, "name");
    }

    /** @return its project's id */
    public String projectId() {
        return Json.str(raw, "projectId");
    }

    /** @return its platform */
    public Platform platform() {
        return Platform.fromWire(Json.str(raw, "platform"));
    }

    /** @return the app id (package name or bundle id) */
    public String appId() {
        return Json.str(raw, "appId");
    }

    /** @return its current registration token */
    public String token() {
        return Json.str(raw, "token");
    }

    /** @return its Firebase installation id */
    public String fid() {
        return Json.str(raw, "fid");
    }

    /** @return the app's state */
    public DeviceState state() {
        return DeviceState.fromWire(Json.str(raw, "state"));
    }

    /** @return whether its token is still valid */
    public boolean tokenValid() {
        return Json.bool(raw, "tokenValid", true);
    }

    /** @return the sender ids allowed to message it */
    public List<String> senders() {
        return Json.strings(raw, "senders");
    }

    /** @return the topics it is subscribed to */
    public List<String> topics() {
        return Json.strings(raw, "topics");
    }

    /** @return when it was created */
    public Instant createdAt() {
        return Times.instant(Json.str(raw, "createdAt"));
    }

    /** @return how many messages are stored for it (waiting for it to connect) */
    public long storedCount() {
        return Json.num(raw, "storedCount", 0);
    }

    /** @return how many messages it has received */
    public long deliveredCount() {
        return Json.num(raw, "deliveredCount", 0);
    }

    /** @return the JSON the API described it with */
    public Map<String, Object> raw() {
        return raw;
    }

    /** @return the client it is bound to */
    public Client client() {
        return client;
    }

    /** @return the device as the API describes it now */
    public Device reload() {
        return client.getDevice(projectId(), id());
    }

    /**
     * @param state where the app goes
     * @return the device afterwards
     */
    public Device setState(DeviceState state) {
        return client.updateDevice(projectId(), id(), state, null);
    }

    /**
     * @param senders the sender ids (project numbers) allowed to message this install
     * @return the device afterwards
     */
    public Device setSenders(List<String> senders) {
        return client.updateDevice(projectId(), id(), null, senders);
    }

    /** @return the device afterwards: the next delivery attempt invalidates its token */
    public Device uninstall() {
        return client.uninstallDevice(projectId(), id());
    }

    /** @return the device with a new token (an uninstalled app is reinstalled) */
    public Device refreshToken() {
        return client.refreshToken(projectId(), id(), null);
    }

    /**
     * @param topic the topic to join
     * @return the device afterwards
     */
    public Device subscribe(String topic) {
        return client.subscribe(projectId(), id(), topic);
    }

    /**
     * @param topic the topic to leave
     * @return the device afterwards
     */
    public Device unsubscribe(String topic) {
        return client.unsubscribe(projectId(), id(), topic);
    }

    /** @return what the app received so far (read once, now) */
    public Inbox inbox() {
        return client.inbox(projectId(), id());
    }

    /** Empties the inbox. */
    public void clearInbox() {
        client.clearInbox(projectId(), id());
    }

    /** @return what the device holds now (store and forward), as {@link Client#stored} */
    public Map<String, Object> stored() {
        return client.stored(projectId(), id());
    }

    /** @return the device's last outcomes, newest first, and its story, as {@link Client#outcomes} */
    public Map<String, Object> outcomes() {
        return client.outcomes(projectId(), id());
    }

    /** @return the notifications shown, as {@link Client#tray} */
    public Map<String, Object> tray() {
        return client.tray(projectId(), id());
    }

    /**
     * Shows a notification for a message in the inbox.
     *
     * @param messageId the message
     * @param tag replaces a shown notification with this tag (null: none)
     * @return the tray afterwards
     */
    public Map<String, Object> showNotification(String messageId, String tag) {
        return client.showNotification(projectId(), id(), messageId, tag);
    }

    /** Clears the notifications shown. */
    public void clearTray() {
        client.clearTray(projectId(), id());
    }

    /** @return the device's events */
    public EventList events() {
        return client.deviceEvents(projectId(), id(), EventQuery.all());
    }

    /** Deletes the device: its token then answers as unregistered. */
    public void delete() {
        client.deleteDevice(projectId(), id());
    }

    /**
     * Waits (on the emulator's own wait) for any delivery: {@link FcmAssertions#waitForDelivery(Device, Where, Duration)}
     * with {@link Where#any()} and {@link FcmAssertions#DEFAULT_WITHIN}.
     *
     * @return the first delivery
     */
    public Delivery waitForDelivery() {
        return FcmAssertions.waitForDelivery(this, Where.any(), FcmAssertions.DEFAULT_WITHIN);
    }

    /**
     * Waits for a delivery matching {@code where}, for {@link FcmAssertions#DEFAULT_WITHIN}.
     *
     * @param where which deliveries count
     * @return the first matching delivery
     */
    public Delivery waitForDelivery(Where where) {
        return FcmAssertions.waitForDelivery(this, where, FcmAssertions.DEFAULT_WITHIN);
    }

    /**
     * Waits for a delivery matching {@code where}.
     *
     * @param where which deliveries count
     * @param within how long to wait (wall time)
     * @return the first matching delivery
     */
    public Delivery waitForDelivery(Where where, Duration within) {
        return FcmAssertions.waitForDelivery(this, where, within);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Device && ((Device) o).raw.equals(raw);
    }

    @Override
    public int hashCode() {
        return raw.hashCode();
    }

    @Override
    public String toString() {
        String name = name();
        String token = token();
        return "Device(" + id() + (name != null ? " '" + name + "'" : "") + ", " + Json.str(raw, "platform")
                + ", project " + projectId() + ", " + Json.str(raw, "state") + ", token "
                + (token != null && token.length() > 24 ? token.substring(0, 24) + "…" : token) + ")";
    }
}
