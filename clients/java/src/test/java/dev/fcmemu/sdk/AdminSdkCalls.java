package dev.fcmemu.sdk;

import dev.fcmemu.Json;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The HTTP calls the Firebase Admin SDK for Java makes for {@code FirebaseMessaging.send} and
 * {@code subscribeToTopic}, over two transports, with Google's real host names and no endpoint
 * setting: what reaches the emulator does so through the JVM's default proxy selector and SSL
 * context alone.
 *
 * <p>From firebase-admin-java ({@code FirebaseMessagingClientImpl}, {@code InstanceIdClientImpl})
 * and google-auth-library-java ({@code ServiceAccountCredentials}): the access token comes from a
 * JWT-bearer grant (RS256, {@code iss} the client email, {@code aud} the key file's
 * {@code token_uri}) posted as a form to {@code token_uri}; a send is {@code POST
 * https://fcm.googleapis.com/v1/projects/P/messages:send} with {@code {"message": …}},
 * {@code Authorization: Bearer}, {@code X-GOOG-API-FORMAT-VERSION: 2} and
 * {@code X-Firebase-Client: fire-admin-java/V}; topic management is {@code POST
 * https://iid.googleapis.com/iid/v1:batchAdd} with {@code {"to": "/topics/T",
 * "registration_tokens": […]}} and {@code access_token_auth: true}.
 */
public abstract class AdminSdkCalls {
    /** The scopes FirebaseOptions asks for. */
    static final String SCOPES = String.join(" ", "https://www.googleapis.com/auth/cloud-platform",
            "https://www.googleapis.com/auth/datastore", "https://www.googleapis.com/auth/devstorage.full_control",
            "https://www.googleapis.com/auth/firebase", "https://www.googleapis.com/auth/identitytoolkit",
            "https://www.googleapis.com/auth/userinfo.email");
    static final String CLIENT_VERSION = "fire-admin-java/9.4.3";
    static final String FCM_SEND = "https://fcm.googleapis.com/v1/projects/%s/messages:send";
    static final String IID_BATCH_ADD = "https://iid.googleapis.com/iid/v1:batchAdd";

    /** An HTTP answer. */
    public record Answer(int status, String body) {}

    private final Map<String, Object> key;
    private String accessToken;

    protected AdminSdkCalls(Path keyFile) throws IOException {
        this.key = Json.parseObject(Files.readString(keyFile));
    }

    /** The transport: one POST, as the SDK's transport makes it. */
    protected abstract Answer post(String url, Map<String, String> headers, String contentType, byte[] body)
            throws IOException;

    /** @return the project id the key file names (what the SDK sends for) */
    public String projectId() {
        return (String) key.get("project_id");
    }

    /** The token exchange of ServiceAccountCredentials: a signed JWT for an access token. */
    String accessToken() throws IOException {
        if (accessToken != null) {
            return accessToken;
        }
        long now = System.currentTimeMillis() / 1000;
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", "RS256");
        header.put("typ", "JWT");
        header.put("kid", key.get("private_key_id"));
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("iss", key.get("client_email"));
        claims.put("aud", key.get("token_uri"));
        claims.put("scope", SCOPES);
        claims.put("iat", now);
        claims.put("exp", now + 3600);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String unsigned = b64.encodeToString(Json.write(header).getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(Json.write(claims).getBytes(StandardCharsets.UTF_8));
        String jwt;
        try {
            String pem = ((String) key.get("private_key")).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            PrivateKey privateKey = KeyFactory.getInstance("RSA")
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            Signature signer = Signature.getInstance("SHA256withRSA");
            signer.initSign(privateKey);
            signer.update(unsigned.getBytes(StandardCharsets.US_ASCII));
            jwt = unsigned + "." + b64.encodeToString(signer.sign());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot sign the JWT: " + e, e);
        }
        String form = "grant_type=" + URLEncoder.encode("urn:ietf:params:oauth:grant-type:jwt-bearer", StandardCharsets.UTF_8)
                + "&assertion=" + URLEncoder.encode(jwt, StandardCharsets.UTF_8);
        Answer answer = post((String) key.get("token_uri"), Map.of(), "application/x-www-form-urlencoded; charset=UTF-8",
                form.getBytes(StandardCharsets.UTF_8));
        if (answer.status() != 200) {
            throw new IOException("token exchange: " + answer.status() + " " + answer.body());
        }
        accessToken = (String) Json.parseObject(answer.body()).get("access_token");
        return accessToken;
    }

    private Map<String, String> fcmHeaders() throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer " + accessToken());
        headers.put("X-GOOG-API-FORMAT-VERSION", "2");
        headers.put("X-Firebase-Client", CLIENT_VERSION);
        return headers;
    }

    /**
     * {@code FirebaseMessaging.send(message)}.
     *
     * @param message the v1 message (token/topic, data, notification, ...)
     * @return the answer: 200 with {@code {"name": "projects/P/messages/ID"}}
     */
    public Answer send(Map<String, Object> message) throws IOException {
        byte[] body = Json.write(Map.of("message", message)).getBytes(StandardCharsets.UTF_8);
        return post(String.format(FCM_SEND, projectId()), fcmHeaders(), "application/json; charset=UTF-8", body);
    }

    /**
     * {@code FirebaseMessaging.subscribeToTopic(tokens, topic)}.
     *
     * @return the answer: 200 with {@code {"results": [{}, …]}}
     */
    public Answer subscribeToTopic(java.util.List<String> tokens, String topic) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer " + accessToken());
        headers.put("access_token_auth", "true");
        byte[] body = Json.write(Map.of("to", "/topics/" + topic, "registration_tokens", tokens))
                .getBytes(StandardCharsets.UTF_8);
        return post(IID_BATCH_ADD, headers, "application/json; charset=UTF-8", body);
    }
}
