package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(FcmEmulatorExtension.class)
class ClientTest {
    @Test
    void theEmulatorAndItsProjects(FcmEmulator emulator, Client client, Project project) {
        assertTrue(client.isHealthy());
        assertEquals("demo-fcm-emu", emulator.demoProjectId());
        assertTrue(emulator.proxyUrl().startsWith("http://127.0.0.1:"), emulator.proxyUrl());
        assertTrue(emulator.httpsUrl().startsWith("https://127.0.0.1:"));
        assertEquals(1, emulator.xmppPorts().size());
        assertEquals(client.baseUrl(), emulator.controlUrl());
        assertTrue(client.listProjects().stream().anyMatch(p -> p.id().equals(project.id())));
        ProjectInfo info = project.info();
        assertEquals(project.id(), info.id());
        assertFalse(info.number().isEmpty());
        assertTrue(client.openapi().containsKey("paths"));
        assertTrue(client.caCertificate().contains("BEGIN CERTIFICATE"));
        Project made = client.createProject("made-" + Long.toString(System.nanoTime(), 36), "555000111222");
        assertEquals("555000111222", made.number());
        made.delete();
        FcmEmuException gone = assertThrows(FcmEmuException.class, made::info);
        assertEquals(404, gone.status());
        assertEquals("NOT_FOUND", gone.reason());
    }

    @Test
    void errorsCarryTheApisOwnWords(Client client, Project project) {
        FcmEmuException e = assertThrows(FcmEmuException.class,
                () -> client.request("PATCH", "/projects/" + project.id() + "/devices/nobody", null, Map.of("state", 3),
                        Duration.ofSeconds(5)));
        assertTrue(e.status() == 400 || e.status() == 404, e.getMessage());
        assertTrue(e.getMessage().contains(e.apiMessage()));
        Device phone = project.createDevice(Platform.ANDROID);
        FcmEmuException bad = assertThrows(FcmEmuException.class,
                () -> client.request("PATCH", "/projects/" + project.id() + "/devices/" + phone.id(), null,
                        Map.of("state", 3), Duration.ofSeconds(5)));
        assertEquals(400, bad.status());
        assertEquals("INVALID_ARGUMENT", bad.reason());
        assertEquals("state", bad.field());
    }

    @Test
    void devicesAndTheirStates(Project project) {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).name("pixel").topics("news"));
        assertEquals("pixel", phone.name());
        assertEquals(Platform.ANDROID, phone.platform());
        assertEquals(DeviceState.FOREGROUND, phone.state());
        assertEquals(List.of("news"), phone.topics());
        assertTrue(phone.tokenValid());
        assertEquals(phone.id(), project.device("pixel").id());
        assertEquals(phone.id(), project.device(phone.token()).id());
        assertEquals(DeviceState.DOZE, phone.setState(DeviceState.DOZE).state());
        assertEquals(List.of("news", "sport"), phone.subscribe("sport").topics());
        assertEquals(List.of("news"), phone.unsubscribe("sport").topics());
        String oldToken = phone.token();
        assertNotEquals(oldToken, phone.refreshToken().token());
        assertEquals(DeviceState.UNINSTALLED, phone.uninstall().state());
        List<Device> many = project.createDevices(3, NewDevice.of(Platform.WEB).state(DeviceState.BACKGROUND));
        assertEquals(3, many.size());
        assertEquals(4, project.devices().size());
        assertEquals(4, project.client().listDevices(project.id(), 0, 2).total());
        many.get(0).delete();
        assertEquals(3, project.devices().size());
    }

    @Test
    void inboxEventsAndTheirWaits(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID, "pixel");
        Inbox empty = phone.inbox();
        assertEquals(0, empty.size());
        assertNull(empty.satisfied());
        Inbox timedOut = project.client().inbox(project.id(), phone.id(), 1, Duration.ofMillis(50));
        assertEquals(Boolean.FALSE, timedOut.satisfied());
        String name = Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("score", "1-0")));
        Inbox one = project.client().inbox(project.id(), phone.id(), 1, Duration.ofSeconds(10));
        assertEquals(Boolean.TRUE, one.satisfied());
        Delivery delivery = one.deliveries().get(0);
        assertEquals(Map.of("score", "1-0"), delivery.data());
        assertTrue(name.endsWith(delivery.messageId()), name + " / " + delivery.messageId());
        EventList events = phone.events();
        assertTrue(events.kinds().contains("delivered"), events.kinds().toString());
        EventList waited = project.events(EventQuery.all().kinds("delivered").waitFor(1, Duration.ofSeconds(5)));
        assertEquals(Boolean.TRUE, waited.satisfied());
        assertEquals(phone.id(), waited.events().get(0).device());
        phone.clearInbox();
        assertEquals(0, phone.inbox().size());
    }

    @Test
    void theEventStream(FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(Platform.WEB);
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("a", "b")));
        try (EventStream stream = project.streamEvents(EventQuery.all().kinds("delivered"), -1L)) {
            Event event = stream.nextEvent();
            assertEquals("delivered", event.kind());
            assertEquals(project.id(), event.project());
        }
    }

    @Test
    void theClockAndFaults(Client client, FcmEmulator emulator, Project project) throws Exception {
        Clock paused = client.pauseClock();
        try {
            assertTrue(paused.paused());
            Clock later = client.advanceClock(Duration.ofMinutes(15));
            assertEquals(Duration.ofMinutes(15), Duration.between(paused.now(), later.now()));
        } finally {
            client.resumeClock();
        }
        FaultRule rule = client.addFault(FaultRule.of(Map.of("api", "v1", "project", project.id(), "count", 1),
                Map.of("error", "UNAVAILABLE")));
        assertTrue(rule.id() != null && !rule.id().isEmpty());
        assertTrue(client.faults().stream().anyMatch(r -> r.id().equals(rule.id())));
        Device phone = project.createDevice(Platform.ANDROID);
        AssertionError failed = assertThrows(AssertionError.class,
                () -> Sends.v1(emulator, project, Map.of("token", phone.token())));
        assertTrue(failed.getMessage().contains("503"), failed.getMessage());
        client.removeFault(rule.id());
        assertFalse(client.faults().stream().anyMatch(r -> r.id().equals(rule.id())));
    }

    @Test
    void jsonRoundTrips() {
        Map<String, Object> value = Json.parseObject("{\"a\":[1,2.5,\"x\\u00e9\\n\",true,null,{}],\"b\":-3e2}");
        assertEquals(java.util.Arrays.asList(1L, 2.5, "xé\n", true, null, Map.of()), value.get("a"));
        assertEquals(-300.0, value.get("b"));
        assertEquals(Json.write(value), Json.write(Json.parseObject(Json.write(value))));
        assertEquals("{\"n\":-300,\"s\":\"a\\\"b\"}", Json.write(new java.util.TreeMap<>(Map.of("n", -300.0, "s", "a\"b"))));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\":}"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1] x"));
    }
}
