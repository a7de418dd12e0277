package dev.fcmemu.sdk;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The Admin SDK's calls over {@code java.net.http.HttpClient} built with the defaults
 * ({@code HttpClient.newHttpClient()}: the default proxy selector and SSL context, HTTP/2 by ALPN),
 * as an application that wires its own transport would.
 */
public final class HttpClientSdk extends AdminSdkCalls {
    private final HttpClient http = HttpClient.newHttpClient();

    public HttpClientSdk(Path keyFile) throws IOException {
        super(keyFile);
    }

    /** @return the client (to check the protocol it negotiated) */
    public HttpClient http() {
        return http;
    }

    HttpClient.Version lastVersion;

    @Override
    protected Answer post(String url, Map<String, String> headers, String contentType, byte[] body) throws IOException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        try {
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            lastVersion = answer.version();
            return new Answer(answer.statusCode(), answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** @return the HTTP version of the last answer */
    public HttpClient.Version lastVersion() {
        return lastVersion;
    }
}
