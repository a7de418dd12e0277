package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(FcmEmulatorExtension.class)
class ControlApiTest {
    /** Each operationId of the control API's OpenAPI document, and the {@link Client} method for it. */
    static final Map<String, String> OPERATIONS = new TreeMap<>(Map.ofEntries(
            Map.entry("health", "health"), Map.entry("listConnections", "connections"), Map.entry("info", "info"), Map.entry("caCertificate", "caCertificate"),
            Map.entry("openapi", "openapi"), Map.entry("resetAll", "reset"),
            Map.entry("exportSnapshot", "exportSnapshot"), Map.entry("importSnapshot", "importSnapshot"),
            Map.entry("getClock", "clock"), Map.entry("listTimers", "timers"),
            Map.entry("advanceClock", "advanceClock"), Map.entry("pauseClock", "pauseClock"),
            Map.entry("resumeClock", "resumeClock"), Map.entry("setClockSpeed", "setClockSpeed"),
            Map.entry("listAllEvents", "events"), Map.entry("streamEvents", "streamEvents"),
            Map.entry("listFaults", "faults"), Map.entry("addFault", "addFault"), Map.entry("setFaults", "setFaults"),
            Map.entry("clearFaults", "clearFaults"), Map.entry("getFault", "fault"),
            Map.entry("removeFault", "removeFault"), Map.entry("listProjects", "listProjects"),
            Map.entry("createProject", "createProject"), Map.entry("getProject", "getProject"),
            Map.entry("updateProject", "updateProject"), Map.entry("metrics", "metrics"),
            Map.entry("deleteProject", "deleteProject"), Map.entry("resetProject", "resetProject"),
            Map.entry("revokeAccessTokens", "revokeAccessTokens"),
            Map.entry("getServiceAccount", "serviceAccountJson"),
            Map.entry("createAccessToken", "createAccessToken"),
            Map.entry("listXMPPConnections", "xmppConnections"), Map.entry("sendUpstream", "sendUpstream"),
            Map.entry("drainXMPP", "drainXmpp"), Map.entry("listTopics", "topics"), Map.entry("listGroups", "groups"),
            Map.entry("listProjectEvents", "projectEvents"), Map.entry("streamProjectEvents", "streamEvents"),
            Map.entry("listDevices", "listDevices"), Map.entry("createDevice", "createDevice"),
            Map.entry("getDevice", "getDevice"), Map.entry("updateDevice", "updateDevice"),
            Map.entry("deleteDevice", "deleteDevice"), Map.entry("uninstallDevice", "uninstallDevice"),
            Map.entry("refreshToken", "refreshToken"), Map.entry("subscribe", "subscribe"),
            Map.entry("unsubscribe", "unsubscribe"), Map.entry("getInbox", "inbox"),
            Map.entry("clearInbox", "clearInbox"), Map.entry("getTray", "tray"), Map.entry("getOutcomes", "outcomes"),
            Map.entry("showNotification", "showNotification"), Map.entry("clearTray", "clearTray"),
            Map.entry("getStored", "stored"), Map.entry("listDeviceEvents", "deviceEvents"),
            Map.entry("streamDeviceEvents", "streamEvents")));

    @Test
    @SuppressWarnings("unchecked")
    void everyOperationOfTheServedOpenApiDocumentHasAMethod(Client client) {
        Set<String> served = new TreeSet<>();
        Map<String, Object> paths = (Map<String, Object>) client.openapi().get("paths");
        for (Object item : paths.values()) {
            for (Object op : ((Map<String, Object>) item).values()) {
                if (op instanceof Map && ((Map<String, Object>) op).get("operationId") instanceof String id) {
                    served.add(id);
                }
            }
        }
        Set<String> missing = new TreeSet<>(served);
        missing.removeAll(OPERATIONS.keySet());
        assertEquals(Set.of(), missing, "operations of the served document with no method in the map");
        Set<String> methods = Arrays.stream(Client.class.getMethods()).map(Method::getName).collect(Collectors.toSet());
        List<String> absent = OPERATIONS.entrySet().stream().filter(e -> !methods.contains(e.getValue()))
                .map(e -> e.getKey() + " -> " + e.getValue()).collect(Collectors.toList());
        assertEquals(List.of(), absent, "methods named in the map that Client lacks");
    }

    @Test
    void apiOffRevokedBearersAndMetrics(Client client, FcmEmulator emulator, Project project) throws Exception {
        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID));
        Map<String, Object> message = Map.of("token", phone.token(), "data", Map.of("a", "1"));
        String bearer = project.createAccessToken().accessToken();

        assertFalse(project.update(false).apiEnabled());
        HttpResponse<String> disabled = Sends.v1(emulator, project, bearer, message);
        assertEquals(403, disabled.statusCode(), disabled.body());
        assertTrue(disabled.body().contains("SERVICE_DISABLED"), disabled.body());
        assertTrue(client.updateProject(project.id(), true).apiEnabled());
        assertEquals(200, Sends.v1(emulator, project, bearer, message).statusCode());

        project.revokeAccessTokens();
        assertEquals(401, Sends.v1(emulator, project, bearer, message).statusCode());
        Sends.v1(emulator, project, message);

        String metrics = client.metrics();
        assertTrue(metrics.contains("\nfcm_emu_messages_accepted_total"), metrics);
    }

    @Test
    @SuppressWarnings("unchecked")
    void outcomesTellWhyAMessageDidNotArrive(Client client, FcmEmulator emulator, Project project) throws Exception {
        Device away = project.createDevice(NewDevice.of(Platform.ANDROID).name("why-java").state(DeviceState.OFFLINE));
        assertEquals("Nothing was sent to it yet.", away.outcomes().get("story"));
        Sends.v1(emulator, project, Map.of("token", away.token(), "data", Map.of("a", "b"), "android", Map.of("ttl", "0s")));
        Map<String, Object> answer = client.outcomes(project.id(), away.token());
        assertEquals("why-java", ((Map<String, Object>) answer.get("device")).get("name"));
        assertEquals(0L, ((Number) answer.get("stored")).longValue());
        assertEquals("discarded: TTL 0 while the device was offline", answer.get("story"));
        List<Map<String, Object>> outcomes = (List<Map<String, Object>>) answer.get("outcomes");
        assertEquals(List.of("discarded", "accepted"), outcomes.stream().map(o -> o.get("kind")).collect(Collectors.toList()));
        assertEquals("ttl-zero", outcomes.get(0).get("reason"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void storedTimersFaultAndTray(Client client, FcmEmulator emulator, Project project) throws Exception {
        Device away = project.createDevice(NewDevice.of(Platform.ANDROID).state(DeviceState.OFFLINE));
        String name = Sends.v1(emulator, project, Map.of("token", away.token(), "data", Map.of("k", "v")));
        List<Map<String, Object>> stored = (List<Map<String, Object>>) away.stored().get("stored");
        assertEquals(1, stored.size(), stored.toString());
        String id = (String) stored.get(0).get("messageId");
        assertTrue(name.endsWith(id), name + " / " + id);
        assertTrue(stored.get(0).get("expiresAt") instanceof String, stored.toString());
        Map<String, Object> timers = client.timers(0, 1000);
        assertTrue(((Number) timers.get("total")).longValue() >= 1, timers.toString());
        assertTrue(((List<Map<String, Object>>) timers.get("timers")).stream()
                .anyMatch(t -> "expiry".equals(t.get("what")) && id.equals(t.get("messageId"))
                        && project.id().equals(t.get("project"))), timers.toString());
        assertEquals(1, ((List<?>) client.timers(0, 1).get("timers")).size());

        FaultRule rule = client.addFault(FaultRule.of(Map.of("api", "v1", "project", project.id(), "count", 1),
                Map.of("error", "UNAVAILABLE")));
        try {
            Map<String, Object> got = client.fault(rule.id());
            assertEquals(rule.id(), got.get("id"));
            assertEquals(0L, ((Number) got.get("fired")).longValue());
            assertEquals("UNAVAILABLE", ((Map<String, Object>) got.get("action")).get("error"));
        } finally {
            client.removeFault(rule.id());
        }

        Device phone = project.createDevice(NewDevice.of(Platform.ANDROID).state(DeviceState.BACKGROUND));
        Sends.v1(emulator, project, Map.of("token", phone.token(), "data", Map.of("a", "b")));
        Delivery delivery = client.inbox(project.id(), phone.id(), 1, Duration.ofSeconds(10)).deliveries().get(0);
        phone.clearTray();
        assertEquals(List.of(), phone.tray().get("notifications"));
        Map<String, Object> shown = phone.showNotification(delivery.messageId(), "goal");
        List<Map<String, Object>> notes = (List<Map<String, Object>>) shown.get("notifications");
        assertEquals(1, notes.size(), shown.toString());
        assertEquals("goal", notes.get(0).get("tag"));
        assertEquals(delivery.messageId(), notes.get(0).get("messageId"));
        assertEquals(1, ((List<?>) phone.tray().get("notifications")).size());
        phone.clearTray();
        assertEquals(List.of(), phone.tray().get("notifications"));
    }
}
