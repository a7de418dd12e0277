package dev.fcmemu;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a device to create is: immutable, each method returns a new spec.
 *
 * <pre>{@code
 * project.createDevice(NewDevice.of(Platform.IOS).name("iphone").state(DeviceState.OFFLINE).topics("news"));
 * }</pre>
 */
public final class NewDevice {
    private final Map<String, Object> fields;

    private NewDevice(Map<String, Object> fields) {
        this.fields = fields;
    }

    /**
     * @param platform the device's platform
     * @return a spec for a device on {@code platform}, foreground, with a generated token
     */
    public static NewDevice of(Platform platform) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("platform", platform.wireName());
        return new NewDevice(fields);
    }

    private NewDevice with(String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(fields);
        copy.put(key, value);
        return new NewDevice(copy);
    }

    /**
     * @param name a name unique in the project (usable wherever a device id is)
     * @return the spec with the name
     */
    public NewDevice name(String name) {
        return with("name", name);
    }

    /**
     * @param token the registration token to use instead of a generated one
     * @return the spec with the token
     */
    public NewDevice token(String token) {
        return with("token", token);
    }

    /**
     * @param appId the package name or bundle id
     * @return the spec with the app id
     */
    public NewDevice appId(String appId) {
        return with("appId", appId);
    }

    /**
     * @param clientSdk {@code "legacy"} for an Android app built before the {@code android_v2}
     *     callbacks (every message reaches {@code onMessageReceived}), {@code "current"} by default
     * @return the spec with the client SDK
     */
    public NewDevice clientSdk(String clientSdk) {
        return with("clientSdk", clientSdk);
    }

    /**
     * @param state the state it starts in
     * @return the spec with the state
     */
    public NewDevice state(DeviceState state) {
        return with("state", state.wireName());
    }

    /**
     * @param topics topics it is subscribed to from the start
     * @return the spec with the topics
     */
    public NewDevice topics(String... topics) {
        return with("topics", List.of(topics));
    }

    /**
     * @param senders sender ids allowed to message it (default: the project's)
     * @return the spec with the senders
     */
    public NewDevice senders(String... senders) {
        return with("senders", List.of(senders));
    }

    Map<String, Object> toJson(Integer count) {
        Map<String, Object> out = new LinkedHashMap<>(fields);
        if (count != null) {
            out.remove("name");
            out.remove("token");
            out.put("count", count);
        }
        return out;
    }
}
