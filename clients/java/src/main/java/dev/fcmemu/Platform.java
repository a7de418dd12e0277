package dev.fcmemu;

import java.util.Locale;

/** A device's platform: how the emulator renders what the app receives. */
public enum Platform {
    /** Android: the app sees a {@code RemoteMessage}. */
    ANDROID,
    /** iOS: the app sees APNs {@code userInfo}. */
    IOS,
    /** The web: a service worker's push payload. */
    WEB;

    /** @return the API's name: {@code android}, {@code ios} or {@code web} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name the API's name
     * @return the platform
     * @throws IllegalArgumentException for an unknown name
     */
    public static Platform fromWire(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return wireName();
    }
}
