package dev.fcmemu;

import static dev.fcmemu.FcmAssertions.waitForDeliveries;
import static dev.fcmemu.FcmAssertions.waitForDelivery;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Failed waits say why none came: the device's outcomes, what it holds back, the nearest miss. */
@ExtendWith(FcmEmulatorExtension.class)
class WhyTest {
    private static final Duration SHORT = Duration.ofMillis(200);

    /** Skips a test that reads the device's outcomes on an emulator without that route (an older one). */
    private static void needsOutcomes(Client client, Device device) {
        try {
            client.request("GET", "/projects/" + device.projectId() + "/devices/" + device.id() + "/outcomes", null, null,
                    client.timeout());
        } catch (FcmEmuException e) {
            assumeTrue(e.status() != 404, "this emulator has no GET …/devices/{device}/outcomes route (404): " + e.getMessage());
            throw e;
        }
    }

    private static String failure(Device device, Where where) {
        return assertThrows(DeliveryAssertionError.class, () -> waitForDelivery(device, where, SHORT)).getMessage();
    }

    @Test
    void aMessageDiscardedForTtlZeroIsNamed(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).name("pixel").state(DeviceState.OFFLINE));
        needsOutcomes(emulator.client(), phone);
        String name = Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "3-0"),
                "android", Map.of("ttl", "0s")));
        String messageId = name.substring(name.lastIndexOf('/') + 1);
        String text = failure(phone, Where.data("score", "3-0"));
        assertTrue(text.contains("but 0 matched: message " + messageId + " was discarded: "), text);
        assertTrue(text.contains("TTL 0") && text.contains("; the inbox was empty"), text);
    }

    @Test
    void aRefusedSendIsNamed(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID, "pixel");
        needsOutcomes(emulator.client(), phone);
        assertEquals(400, Sends.v1(emulator, project, project.createAccessToken().accessToken(),
                Map.of("token", phone.token(), "data", Map.of("from", "me", "score", "3-0"))).statusCode());
        String text = failure(phone, Where.data("score", "3-0"));
        assertTrue(text.contains("but 0 matched: refused: 400 INVALID_ARGUMENT"), text);
    }

    @Test
    void whatAnOfflineDeviceHoldsIsCounted(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).name("pixel").state(DeviceState.OFFLINE));
        for (String score : List.of("1-0", "2-0", "3-0")) {
            Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", score)));
        }
        // With or without the outcomes route: a fresh read of the device says it too.
        String text = failure(phone, Where.data("score", "3-0"));
        assertTrue(text.contains("but 0 matched: held: device offline, 3 stored; the inbox was empty"), text);
    }

    @Test
    void theNearestMissIsNamed(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID, "pixel");
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "1-1", "team", "away")));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "3-1", "team", "home")));
        waitForDeliveries(phone, 2, Where.any(), Duration.ofSeconds(10));
        String text = failure(phone, Where.field("payload.data.team", "home").and(Where.data("score", "3-0")));
        assertTrue(text.contains("a delivery matched all but data.score: \"3-1\", wanted \"3-0\"; the inbox held 2"), text);
        text = failure(phone, Where.fields(Map.of("payload", Map.of("data", Map.of("score", "3-0")))).and(Where.data("minute", "90")));
        assertTrue(text.contains("the nearest delivery differs in 2 of 2 fields, first payload.data.score: \"1-1\", wanted \"3-0\""), text);
    }

    @Test
    void aFaultRuleThatNeverFiredIsReportedNotFailed(Client client, Project project) {
        FaultRuleAudit audit = FaultRuleAudit.start(client, project.id());
        FaultRule rule = client.addFault(new FaultRule("never-" + project.id(), Map.of("project", project.id(), "api", "legacy"),
                Map.of("error", "UNAVAILABLE")));
        try {
            List<String> warnings = audit.report("WhyTest.aFaultRule");
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).startsWith("fcm-emu: fault rule '" + rule.id() + "' never fired during WhyTest.aFaultRule"),
                    warnings.get(0));
        } finally {
            client.removeFault(rule.id());
        }
    }

    @Test
    void theExtensionReportsAnUnusedRuleAndTheTestPasses(FcmEmulator emulator, @TempDir Path dir) throws Exception {
        String launcher = System.getenv().getOrDefault("FCM_EMU_TEST_LAUNCHER", "/usr/share/java/junit-platform-console-standalone.jar");
        ProcessBuilder child = new ProcessBuilder(CleanupTest.java(), "-jar", launcher, "--disable-banner", "--disable-ansi-colors",
                "--details=tree", "--class-path", CleanupTest.classpath(), "--include-tag", "child",
                "--select-class", ChildUnusedRuleTest.class.getName());
        child.environment().put("FCM_EMU_CONTROL_API", emulator.controlUrl());
        Process run = child.redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        try {
            assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the child run ended");
            String output = Files.readString(dir.resolve("out"));
            assertEquals(0, run.exitValue(), output);
            assertTrue(output.contains("fcm-emu: fault rule 'never-"), output);
            assertTrue(output.contains("never fired during ChildUnusedRuleTest.passesWithoutTheLegacyApi"), output);
            assertTrue(output.contains("WARNING"), "logged as a warning: " + output);
        } finally {
            for (FaultRule rule : emulator.client().faults()) {
                if (rule.id().startsWith("never-")) {
                    emulator.client().removeFault(rule.id());
                }
            }
        }
    }
}
