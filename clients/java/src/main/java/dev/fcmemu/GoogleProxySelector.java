package dev.fcmemu;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A {@link ProxySelector} that sends Google's API hosts to the emulator's HTTPS proxy and asks the
 * selector it replaced about everything else.
 *
 * <p>Routed: {@code https} to {@link #GOOGLE_API_HOSTS} (port 443), and plain {@code http} to the
 * metadata server's name. {@code HttpURLConnection} (google-http-client's {@code NetHttpTransport},
 * which the Admin SDK uses by default), {@code java.net.http.HttpClient} and Apache HttpClient 5's
 * {@code SystemDefaultRoutePlanner} all ask the default selector, so none of them needs an endpoint
 * or a proxy in the code under test. The proxy joins the client to the emulator's TLS port, whose
 * certificate covers those names.
 */
public final class GoogleProxySelector extends ProxySelector {
    /** Google hosts whose HTTPS the emulator stands in for. */
    public static final Set<String> GOOGLE_API_HOSTS = Set.of("fcm.googleapis.com", "iid.googleapis.com",
            "oauth2.googleapis.com", "www.googleapis.com", "iamcredentials.googleapis.com", "accounts.google.com");
    /** The GCE metadata server's name, answered by the emulator's proxy in absolute form. */
    public static final String METADATA_HOST = "metadata.google.internal";

    private final Proxy proxy;
    private final ProxySelector fallback;

    /**
     * @param proxyAddress the emulator's proxy
     * @param fallback the selector for every other URI (may be null: direct)
     */
    public GoogleProxySelector(InetSocketAddress proxyAddress, ProxySelector fallback) {
        this.proxy = new Proxy(Proxy.Type.HTTP, proxyAddress);
        this.fallback = fallback;
    }

    /**
     * @param uri a URI a client is about to connect to
     * @return whether it goes to the emulator
     */
    public static boolean routed(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        int port = uri.getPort();
        if (scheme.equals("https")) {
            return GOOGLE_API_HOSTS.contains(host) && (port == -1 || port == 443);
        }
        if (scheme.equals("http")) {
            return host.equals(METADATA_HOST) && (port == -1 || port == 80);
        }
        return false;
    }

    @Override
    public List<Proxy> select(URI uri) {
        if (uri == null) {
            throw new IllegalArgumentException("uri is null");
        }
        if (routed(uri)) {
            return List.of(proxy);
        }
        return fallback != null ? fallback.select(uri) : List.of(Proxy.NO_PROXY);
    }

    @Override
    public void connectFailed(URI uri, SocketAddress address, IOException failure) {
        if (!routed(uri) && fallback != null) {
            fallback.connectFailed(uri, address, failure);
        }
    }

    /** @return the emulator's proxy */
    public Proxy proxy() {
        return proxy;
    }

    @Override
    public String toString() {
        return "GoogleProxySelector(" + proxy.address() + ")";
    }
}
