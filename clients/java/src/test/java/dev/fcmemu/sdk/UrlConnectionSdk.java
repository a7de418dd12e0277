package dev.fcmemu.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * The Admin SDK's calls over {@link HttpURLConnection}, as google-http-client's
 * {@code NetHttpTransport} (the SDK's default transport) makes them: {@code url.openConnection()}
 * with no proxy argument, so the JVM's default proxy selector decides, and the default
 * {@code HttpsURLConnection} socket factory.
 */
public final class UrlConnectionSdk extends AdminSdkCalls {
    public UrlConnectionSdk(Path keyFile) throws IOException {
        super(keyFile);
    }

    @Override
    protected Answer post(String url, Map<String, String> headers, String contentType, byte[] body) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
        try {
            connection.setRequestMethod("POST");
            connection.setInstanceFollowRedirects(false);
            connection.setConnectTimeout(20_000);
            connection.setReadTimeout(20_000);
            connection.setRequestProperty("Accept-Encoding", "gzip");
            connection.setRequestProperty("User-Agent", "Google-HTTP-Java-Client/1.44.1 (gzip)");
            headers.forEach(connection::setRequestProperty);
            connection.setRequestProperty("Content-Type", contentType);
            connection.setDoOutput(true);
            connection.setFixedLengthStreamingMode(body.length);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(body);
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            if (in == null) {
                return new Answer(status, "");
            }
            if ("gzip".equalsIgnoreCase(connection.getContentEncoding())) {
                in = new GZIPInputStream(in);
            }
            try (InputStream stream = in) {
                return new Answer(status, new String(stream.readAllBytes(), StandardCharsets.UTF_8));
            }
        } finally {
            connection.disconnect();
        }
    }
}
