package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import dev.fcmemu.sdk.AdminSdkCalls;
import dev.fcmemu.sdk.HttpClientSdk;
import dev.fcmemu.sdk.UrlConnectionSdk;
import java.io.FileInputStream;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Admin SDK's calls, with Google's host names and no endpoint in the code under test, reach
 * the emulator through what the extension installs, over HttpURLConnection and HttpClient.
 */
@ExtendWith(FcmEmulatorExtension.class)
class RoutingTest {
    private static Map<String, Object> message(String token, String score) {
        return Map.of("token", token, "notification", Map.of("title", "Goal!"), "data", Map.of("score", score));
    }

    @Test
    void sendOverHttpUrlConnectionReachesTheDevice(Project project, FirebaseEnvironment env, FcmEmulator emulator) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID, "pixel");
        AdminSdkCalls sdk = new UrlConnectionSdk(env.keyFile());
        AdminSdkCalls.Answer answer = sdk.send(message(phone.token(), "3-0"));
        assertEquals(200, answer.status(), answer.body());
        assertTrue(answer.body().contains("projects/" + project.id() + "/messages/"), answer.body());
        Delivery delivery = phone.waitForDelivery(Where.data("score", "3-0"));
        assertEquals("Goal!", delivery.get("payload.notification.title"));
        assertEquals("v1", delivery.api());
        // It went through the proxy: the emulator logged the CONNECTs to Google's names.
        List<String> connects = emulator.client().events(EventQuery.all().kinds("proxyConnect")).events().stream()
                .map(e -> Json.write(e.raw())).toList();
        assertTrue(connects.stream().anyMatch(e -> e.contains("fcm.googleapis.com")), connects.toString());
    }

    @Test
    void sendOverHttpClientReachesTheDevice(Project project, FirebaseEnvironment env) throws Exception {
        Device phone = project.createDevice(Platform.IOS, "iphone");
        HttpClientSdk sdk = new HttpClientSdk(env.keyFile());
        AdminSdkCalls.Answer answer = sdk.send(message(phone.token(), "2-1"));
        assertEquals(200, answer.status(), answer.body());
        assertEquals(HttpClient.Version.HTTP_2, sdk.lastVersion(), "the emulator's TLS port speaks h2 by ALPN");
        phone.waitForDelivery(Where.data("score", "2-1"));
    }

    @Test
    void topicSubscriptionAndTopicSendReachTheDevices(Project project, FirebaseEnvironment env) throws Exception {
        Device a = project.createDevice(Platform.ANDROID);
        Device b = project.createDevice(Platform.WEB);
        AdminSdkCalls sdk = new UrlConnectionSdk(env.keyFile());
        AdminSdkCalls.Answer subscribed = sdk.subscribeToTopic(List.of(a.token(), b.token()), "news");
        assertEquals(200, subscribed.status(), subscribed.body());
        assertEquals(List.of(new Topic("news", 2)), project.topics());
        assertEquals(200, new HttpClientSdk(env.keyFile()).send(Map.of("topic", "news", "data", Map.of("n", "1"))).status());
        a.waitForDelivery(Where.data("n", "1"));
        b.waitForDelivery(Where.field("payload.data.n", "1"));
    }

    @Test
    void theEnvironmentIsInstalledAndPrivate(FirebaseEnvironment env, Project project) throws Exception {
        assertEquals(project.id(), env.projectId());
        assertTrue(ProxySelector.getDefault() instanceof GoogleProxySelector);
        assertSame(env.sslContext(), SSLContext.getDefault());
        assertEquals(env.keyFile().toString(), System.getProperty("fcmemu.credentials"));
        assertEquals(env.trustStore().toString(), System.getProperty("javax.net.ssl.trustStore"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(env.keyFile().getParent())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(env.keyFile())));
        assertEquals(project.id(), Json.parseObject(Files.readString(env.keyFile())).get("project_id"));
        // The trust store: every default CA of the JDK, and the emulator's.
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(env.trustStore().toFile())) {
            store.load(in, FirebaseEnvironment.TRUST_STORE_PASSWORD.toCharArray());
        }
        List<String> aliases = Collections.list(store.aliases());
        assertTrue(env.jdkCertificateCount() > 50, "the JDK's CAs were copied: " + env.jdkCertificateCount());
        assertEquals(env.jdkCertificateCount() + 1, aliases.size());
        X509Certificate ca = (X509Certificate) store.getCertificate("fcm-emu-ca-0");
        assertTrue(ca.getBasicConstraints() >= 0, "the emulator's CA is a CA");
        // Child processes get the same through their environment.
        Map<String, String> child = env.environment();
        assertEquals(env.keyFile().toString(), child.get("GOOGLE_APPLICATION_CREDENTIALS"));
        assertTrue(child.get("JAVA_TOOL_OPTIONS").contains("-Djavax.net.ssl.trustStore=" + env.trustStore()));
        assertTrue(env.environment(true).containsKey("GCE_METADATA_HOST"));
        // Only Google's hosts are routed; the rest asks the selector that was there before.
        assertTrue(GoogleProxySelector.routed(URI.create("https://fcm.googleapis.com/v1/projects/p/messages:send")));
        assertTrue(GoogleProxySelector.routed(URI.create("https://oauth2.googleapis.com/token")));
        assertFalse(GoogleProxySelector.routed(URI.create("https://example.com/")));
        assertFalse(GoogleProxySelector.routed(URI.create("http://127.0.0.1:9092/token")));
    }

    @Test
    void closeRestoresTheJvm(FcmEmulator emulator, Project project) throws Exception {
        ProxySelector selectorBefore = ProxySelector.getDefault();
        SSLContext contextBefore = SSLContext.getDefault();
        String trustBefore = System.getProperty("javax.net.ssl.trustStore");
        Path dir;
        try (FirebaseEnvironment nested = emulator.firebaseEnvironment(project.id()).proxyProperties(true).install()) {
            dir = nested.keyFile().getParent();
            assertNotSame(contextBefore, SSLContext.getDefault());
            assertEquals(nested.proxySelector(), ProxySelector.getDefault());
            assertEquals(URI.create(emulator.proxyUrl()).getPort() + "", System.getProperty("https.proxyPort"));
        }
        assertSame(selectorBefore, ProxySelector.getDefault());
        assertSame(contextBefore, SSLContext.getDefault());
        assertEquals(trustBefore, System.getProperty("javax.net.ssl.trustStore"));
        assertEquals(null, System.getProperty("https.proxyPort"));
        assertFalse(Files.exists(dir), "the environment's directory is removed");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "a child JVM over {0}, routed by its environment alone")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"url", "http"})
    void aChildJvmIsRoutedByTheEnvironment(String transport, Project project, FirebaseEnvironment env) throws Exception {
        Device phone = project.createDevice(Platform.ANDROID);
        String cp = System.getenv("FCM_EMU_TEST_CLASSPATH");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", cp != null ? cp : System.getProperty("java.class.path"), "dev.fcmemu.sdk.SendMain", transport,
                phone.token(), transport).redirectErrorStream(true);
        builder.environment().putAll(env.environment());
        Process child = builder.start();
        String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), output);
        phone.waitForDelivery(Where.data("score", transport));
    }
}
