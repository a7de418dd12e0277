package dev.fcmemu.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Options of {@link FcmEmulatorExtension} for a test class. Classes with the same settings share
 * one emulator for the whole run.
 *
 * <pre>{@code
 * @ExtendWith(FcmEmulatorExtension.class)
 * @FcmEmulatorOptions(settings = {"clockPaused=true", "dozeMaintenanceInterval=15m"})
 * class DozeTest { ... }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface FcmEmulatorOptions {
    /** @return {@code key=value} settings for {@code fcm-emu serve --set} (see {@code fcm-emu serve --help}) */
    String[] settings() default {};

    /**
     * @return whether each test runs with a {@link dev.fcmemu.FirebaseEnvironment} installed for
     *     its project (the JVM's SSL context and proxy selector route Google's hosts to the emulator)
     */
    boolean route() default true;

    /**
     * @return whether the routing also sets {@code https.proxyHost}/{@code https.proxyPort}
     *     (every HTTPS connection of the JVM then goes through the emulator's proxy)
     */
    boolean proxyProperties() default false;
}
