package dev.fcmemu;

import java.util.Locale;

/** Where a simulated app is: what happens to a message depends on it. */
public enum DeviceState {
    /** The app is open: data and notifications go to the app's callback. */
    FOREGROUND,
    /** The app is in the background: notifications go to the system tray. */
    BACKGROUND,
    /** Android Doze: normal-priority messages wait for a maintenance window. */
    DOZE,
    /** No connection: messages are stored until the device comes back (or expire). */
    OFFLINE,
    /** The app was removed: the next delivery attempt invalidates the token. */
    UNINSTALLED;

    /** @return the API's name, such as {@code foreground} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name the API's name
     * @return the state
     * @throws IllegalArgumentException for an unknown name
     */
    public static DeviceState fromWire(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return wireName();
    }
}
