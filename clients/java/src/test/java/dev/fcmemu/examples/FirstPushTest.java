package dev.fcmemu.examples;

import static dev.fcmemu.FcmAssertions.assertNothingDelivered;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fcmemu.Delivery;
import dev.fcmemu.Device;
import dev.fcmemu.DeviceState;
import dev.fcmemu.FirebaseEnvironment;
import dev.fcmemu.NewDevice;
import dev.fcmemu.Platform;
import dev.fcmemu.Project;
import dev.fcmemu.Where;
import dev.fcmemu.junit.FcmEmulatorExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(FcmEmulatorExtension.class)
class FirstPushTest {
    @Test
    void aGoalReachesThePhone(Project project, FirebaseEnvironment env) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID, "pixel");
        new ScoreAlerts(env.keyFile()).goal(phone.token(), "3-0");
        Delivery delivery = phone.waitForDelivery(Where.data("score", "3-0"));
        assertEquals("Goal!", delivery.get("payload.notification.title"));
    }

    @Test
    void anOfflinePhoneGetsNothingYet(Project project, FirebaseEnvironment env) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.IOS).state(DeviceState.OFFLINE));
        new ScoreAlerts(env.keyFile()).goal(phone.token(), "3-1");
        assertNothingDelivered(phone);
        phone.setState(DeviceState.FOREGROUND);
        phone.waitForDelivery(Where.data("score", "3-1"));
    }
}
