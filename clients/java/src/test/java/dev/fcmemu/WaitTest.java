package dev.fcmemu;

import static dev.fcmemu.FcmAssertions.assertDeliveredCount;
import static dev.fcmemu.FcmAssertions.assertNothingDelivered;
import static dev.fcmemu.FcmAssertions.assertNothingDeliveredAfterAdvancing;
import static dev.fcmemu.FcmAssertions.waitForDeliveries;
import static dev.fcmemu.FcmAssertions.waitForDelivery;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import dev.fcmemu.junit.FcmEmulatorOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(FcmEmulatorExtension.class)
class WaitTest {
    @Test
    void waitsForADeliverySentLater(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID);
        CompletableFuture<Delivery> waiting = CompletableFuture.supplyAsync(
                () -> waitForDelivery(phone, Where.data("score", "3-0"), Duration.ofSeconds(20)));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "1-0")));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "3-0"),
                "notification", Map.of("title", "Goal!")));
        Delivery found = waiting.get();
        assertEquals("3-0", found.data().get("score"));
        assertEquals("Goal!", found.get("payload.notification.title"));
        assertEquals(2, waitForDeliveries(phone, 2, Where.any(), Duration.ofSeconds(5)).size());
        assertEquals(1, assertDeliveredCount(phone, 1, Where.fields(Map.of("payload.data.score", "1-0"))).size());
    }

    @Test
    void aFailedWaitSaysWhatTheInboxHeld(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.IOS, "iphone");
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "0-0")));
        waitForDelivery(phone);
        DeliveryAssertionError e = assertThrows(DeliveryAssertionError.class,
                () -> waitForDelivery(phone, Where.data("score", "9-9"), Duration.ofMillis(300)));
        assertTrue(e.getMessage().contains("score=\"9-9\""), e.getMessage());
        assertTrue(e.getMessage().contains("'iphone'"), e.getMessage());
        assertTrue(e.getMessage().contains("the inbox held 1 delivery"), e.getMessage());
        assertTrue(e.getMessage().contains("\"0-0\""), e.getMessage());
        assertEquals(1, e.deliveries().size());
        DeliveryAssertionError nothing = assertThrows(DeliveryAssertionError.class, () -> assertNothingDelivered(phone));
        assertTrue(nothing.getMessage().startsWith("expected no delivery"), nothing.getMessage());
    }

    @Test
    void anOfflineDeviceGetsItsMessageWhenItComesBack(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).state(DeviceState.OFFLINE));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "3-1")));
        assertNothingDelivered(phone, Where.any(), Duration.ofMillis(200));
        phone.setState(DeviceState.FOREGROUND);
        phone.waitForDelivery(Where.field("payload.data.score", "3-1"));
    }
}

/** The virtual clock: "nothing within 15 minutes" without waiting 15 minutes. */
@ExtendWith(FcmEmulatorExtension.class)
@FcmEmulatorOptions(settings = {"clockPaused=true"})
class PausedClockWaitTest {
    @Test
    void aStoredMessageExpiresWhenTheClockPassesItsTtl(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).state(DeviceState.OFFLINE));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("x", "1"),
                "android", Map.of("ttl", "600s")));
        assertNothingDeliveredAfterAdvancing(phone, Where.any(), Duration.ofMinutes(15));
        phone.setState(DeviceState.FOREGROUND);
        assertNothingDelivered(phone);
        assertTrue(phone.events().kinds().contains("expired"), phone.events().kinds().toString());
    }
}
