package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reasons read from an outcomes document shaped as the control API documents it, with no emulator. */
class WhyOutcomesTest {
    private static final String SAMPLE = """
            {"device": {"id": "7", "name": "tablet", "state": "offline", "token": "t"}, "stored": 3, "story": "…", "outcomes": [
             {"kind": "stored", "messageId": "0:9", "summary": "held: device offline, 3 stored", "reason": "offline"},
             {"kind": "accepted", "messageId": "0:9", "summary": "accepted: sent to its token"},
             {"kind": "refused", "status": 400, "code": "INVALID_ARGUMENT", "summary": "refused: 400 INVALID_ARGUMENT Invalid data payload key: from"},
             {"kind": "discarded", "messageId": "0:8", "reason": "ttl-zero", "summary": "discarded: TTL 0 while the device was offline"}]}""";
    private static final String DISCARDED = """
            {"device": {"state": "offline"}, "stored": 0, "outcomes": [
             {"kind": "discarded", "messageId": "0:5", "summary": "discarded: TTL 0 while the device was offline"}]}""";

    @Test
    void newestLostOutcomeFirstThenWhatIsHeld() throws Exception {
        Map<String, String> documents = Map.of("/emulator/v1/projects/p/devices/0/outcomes", SAMPLE,
                "/emulator/v1/projects/p/devices/1/outcomes", DISCARDED);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String document = documents.get(exchange.getRequestURI().getPath());
            byte[] body = (document != null ? document : "{\"error\": {\"code\": 404, \"status\": \"NOT_FOUND\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(document != null ? 200 : 404, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            Client client = new Client("http://127.0.0.1:" + server.getAddress().getPort() + "/emulator/v1");
            assertEquals(List.of("refused: 400 INVALID_ARGUMENT Invalid data payload key: from", "held: device offline, 3 stored"),
                    Why.outcomeReasons(new Device(client, Map.of("id", "0", "projectId", "p"))));
            assertEquals(List.of("message 0:5 was discarded: TTL 0 while the device was offline"),
                    Why.outcomeReasons(new Device(client, Map.of("id", "1", "projectId", "p"))));
            // No outcomes route and no device: nothing to say, and no error.
            assertEquals(List.of(), Why.outcomeReasons(new Device(client, Map.of("id", "2", "projectId", "p"))));
        } finally {
            server.stop(0);
        }
    }
}
