package dev.fcmemu.sdk;

import java.nio.file.Path;
import java.util.Map;

/**
 * A child-process app: sends one message as the Admin SDK would, using only what its environment
 * says ({@code GOOGLE_APPLICATION_CREDENTIALS}, and the proxy and trust store that
 * {@code JAVA_TOOL_OPTIONS} gives the JVM). Arguments: transport ({@code url} or {@code http}),
 * token, score.
 */
public final class SendMain {
    private SendMain() {}

    public static void main(String[] args) throws Exception {
        Path key = Path.of(System.getenv("GOOGLE_APPLICATION_CREDENTIALS"));
        AdminSdkCalls sdk = args[0].equals("url") ? new UrlConnectionSdk(key) : new HttpClientSdk(key);
        AdminSdkCalls.Answer answer = sdk.send(Map.of("token", args[1], "data", Map.of("score", args[2])));
        System.out.println(answer.status() + " " + answer.body());
        System.exit(answer.status() == 200 ? 0 : 1);
    }
}
