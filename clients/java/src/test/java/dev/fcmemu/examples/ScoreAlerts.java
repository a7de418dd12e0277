package dev.fcmemu.examples;

import dev.fcmemu.sdk.AdminSdkCalls;
import dev.fcmemu.sdk.UrlConnectionSdk;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The "app under test" of the first test: it sends a goal alert the way the Firebase Admin SDK
 * does (to fcm.googleapis.com, with a service-account key file), and knows nothing of the emulator.
 */
public final class ScoreAlerts {
    private final AdminSdkCalls fcm;

    public ScoreAlerts(Path serviceAccountKey) throws IOException {
        this.fcm = new UrlConnectionSdk(serviceAccountKey);
    }

    public void goal(String deviceToken, String score) throws IOException {
        AdminSdkCalls.Answer answer = fcm.send(Map.of("token", deviceToken,
                "notification", Map.of("title", "Goal!"), "data", Map.of("score", score)));
        if (answer.status() != 200) {
            throw new IOException("FCM answered " + answer.status() + ": " + answer.body());
        }
    }
}
