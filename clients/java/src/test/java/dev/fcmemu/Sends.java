package dev.fcmemu;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** A v1 send straight to the emulator's HTTP port, for tests of the client and the waits. */
final class Sends {
    // The JDK's defaults: each request asks to upgrade to h2c, which the emulator answers in
    // HTTP/1.1 before closing the connection; the next send must still be answered.
    private static final HttpClient HTTP = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build();

    private Sends() {}

    static String v1(FcmEmulator emulator, Project project, Map<String, Object> message) throws Exception {
        HttpResponse<String> answer = v1(emulator, project, project.createAccessToken().accessToken(), message);
        if (answer.statusCode() != 200) {
            throw new AssertionError("send: " + answer.statusCode() + " " + answer.body());
        }
        return (String) Json.parseObject(answer.body()).get("name");
    }

    /** A send with a given bearer (one that may have been revoked), answered as it came. */
    static HttpResponse<String> v1(FcmEmulator emulator, Project project, String bearer, Map<String, Object> message)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(emulator.httpUrl() + "/v1/projects/" + project.id() + "/messages:send"))
                .header("Authorization", "Bearer " + bearer)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(Map.of("message", message))))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
