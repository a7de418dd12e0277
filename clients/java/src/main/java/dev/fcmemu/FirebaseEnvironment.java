package dev.fcmemu;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Points an unmodified Admin SDK in this JVM (and child processes) at the emulator: the key file,
 * the emulator's CA trusted next to the JDK's own CAs, and the emulator's HTTPS proxy for Google's
 * hosts.
 *
 * <p>{@link #install()} writes, in a private temporary directory (mode 0700):
 * <ul>
 *   <li>the project's service-account key file (0600), whose {@code token_uri} is the emulator:
 *       {@link #keyFile()}, what {@code GOOGLE_APPLICATION_CREDENTIALS} would name;</li>
 *   <li>a PKCS12 trust store with the JDK's default CAs (read through the default
 *       {@link TrustManagerFactory} and copied, certificate by certificate: the JDK's
 *       {@code cacerts} file is only read, never written) plus the emulator's CA, and the same as a
 *       PEM bundle;</li>
 * </ul>
 * and, for this JVM, until {@link #close()}:
 * <ul>
 *   <li>installs an {@link SSLContext} trusting that store as the default
 *       ({@link SSLContext#setDefault}, {@link HttpsURLConnection#setDefaultSSLSocketFactory});</li>
 *   <li>installs a {@link GoogleProxySelector} as the default proxy selector (Google's hosts go to
 *       the emulator's proxy, everything else as before);</li>
 *   <li>sets the system properties {@code javax.net.ssl.trustStore} (with its type and password),
 *       {@code GOOGLE_CLOUD_PROJECT}, {@code fcmemu.credentials} (the key file),
 *       {@code fcmemu.projectId}, {@code fcmemu.controlApi}, {@code fcmemu.metadataHost}, and,
 *       with {@link #proxyProperties(boolean)}, {@code https.proxyHost}/{@code https.proxyPort}
 *       (which send <em>every</em> HTTPS connection through the emulator's proxy, which refuses
 *       hosts it does not stand in for).</li>
 * </ul>
 * {@link #close()} puts every one of them back as it was and deletes the directory.
 *
 * <p>The routing is process-wide. Clients built before {@code install()} keep the SSL context and
 * proxy selector they captured: initialise the code under test (a {@code FirebaseApp}, an
 * {@code HttpClient}) after it. Environment variables cannot be set in a running JVM, so for
 * Application Default Credentials in this JVM pass the key file:
 * {@code GoogleCredentials.fromStream(Files.newInputStream(env.keyFile()))}; child processes get
 * everything from {@link #environment()}.
 */
public final class FirebaseEnvironment implements AutoCloseable {
    /** The trust store's password (a trust store holds no secret). */
    public static final String TRUST_STORE_PASSWORD = "changeit";

    private static final Object LOCK = new Object();

    private final FcmEmulator emulator;
    private final String projectId;
    private boolean proxyProperties;
    private boolean installed;

    private Path directory;
    private Path keyFile;
    private Path caFile;
    private Path trustStore;
    private Path caBundle;
    private SSLContext sslContext;
    private GoogleProxySelector proxySelector;
    private int jdkCertificates;

    private SSLContext previousContext;
    private SSLSocketFactory previousHttpsFactory;
    private ProxySelector previousSelector;
    private final Map<String, String> previousProperties = new LinkedHashMap<>();

    FirebaseEnvironment(FcmEmulator emulator, String projectId) {
        this.emulator = emulator;
        this.projectId = projectId;
    }

    /**
     * Also sets {@code https.proxyHost} and {@code https.proxyPort}, for clients that captured the
     * JDK's own proxy selector before {@link #install()} (it reads them on each connection). Every
     * HTTPS connection of the JVM then goes through the emulator's proxy. Off by default.
     *
     * @param on whether to set them
     * @return this environment
     */
    public FirebaseEnvironment proxyProperties(boolean on) {
        if (installed) {
            throw new IllegalStateException("set proxyProperties before install()");
        }
        this.proxyProperties = on;
        return this;
    }

    /**
     * Writes the files and routes this JVM to the emulator (see the class comment).
     *
     * @return this environment
     * @throws FcmEmuException when the emulator has no proxy, or a file cannot be written
     */
    public FirebaseEnvironment install() {
        synchronized (LOCK) {
            if (installed) {
                return this;
            }
            try {
                prepare();
                route();
                installed = true;
            } catch (IOException | GeneralSecurityException e) {
                closeQuietly();
                throw new FcmEmuException("cannot set up the Firebase environment: " + e, e);
            } catch (RuntimeException e) {
                closeQuietly();
                throw e;
            }
            return this;
        }
    }

    private void closeQuietly() {
        installed = true;
        close();
    }

    private void prepare() throws IOException, GeneralSecurityException {
        String proxy = emulator.proxyUrl();
        if (proxy == null) {
            throw new FcmEmuException("the emulator's HTTPS proxy is off: start it with --set proxyPort=0", null);
        }
        URI proxyUri = URI.create(proxy);
        proxySelector = new GoogleProxySelector(new InetSocketAddress(proxyUri.getHost(), proxyUri.getPort()),
                ProxySelector.getDefault());
        directory = Files.createTempDirectory("fcm-emu-env-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        keyFile = directory.resolve(projectId + "-service-account.json");
        writePrivate(keyFile, emulator.client().serviceAccountJson(projectId).getBytes(StandardCharsets.UTF_8));

        Path ca = emulator.caCertificate();
        if (ca == null || !Files.isReadable(ca)) {
            // An emulator elsewhere (a container, another machine): its CA over the control API.
            ca = directory.resolve("fcm-emu-ca.pem");
            writePrivate(ca, emulator.client().caCertificate().getBytes(StandardCharsets.US_ASCII));
        }
        caFile = ca;
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        Collection<? extends Certificate> emulatorCas =
                x509.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(ca)));
        if (emulatorCas.isEmpty()) {
            throw new FcmEmuException("no certificate in the emulator's CA file " + ca, null);
        }

        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        List<X509Certificate> jdkCas = defaultCas();
        jdkCertificates = jdkCas.size();
        StringBuilder pem = new StringBuilder();
        int n = 0;
        for (X509Certificate cert : jdkCas) {
            store.setCertificateEntry("jdk-" + n++, cert);
            appendPem(pem, cert);
        }
        n = 0;
        for (Certificate cert : emulatorCas) {
            store.setCertificateEntry("fcm-emu-ca-" + n++, cert);
            appendPem(pem, cert);
        }
        trustStore = directory.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(trustStore, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            store.store(out, TRUST_STORE_PASSWORD.toCharArray());
        }
        caBundle = directory.resolve("ca-bundle.pem");
        writePrivate(caBundle, pem.toString().getBytes(StandardCharsets.US_ASCII));

        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        sslContext = SSLContext.getInstance("TLS");
        sslContext.init(null, factory.getTrustManagers(), null);
    }

    /** The CAs the JDK trusts by default, through its default trust manager (not its files). */
    static List<X509Certificate> defaultCas() throws GeneralSecurityException {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        List<X509Certificate> out = new ArrayList<>();
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager) {
                out.addAll(List.of(((X509TrustManager) manager).getAcceptedIssuers()));
            }
        }
        return out;
    }

    private static void appendPem(StringBuilder pem, Certificate cert) throws GeneralSecurityException {
        pem.append("-----BEGIN CERTIFICATE-----\n")
                .append(Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(cert.getEncoded()))
                .append("\n-----END CERTIFICATE-----\n");
    }

    private static void writePrivate(Path path, byte[] content) throws IOException {
        Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(path, content, StandardOpenOption.TRUNCATE_EXISTING);
    }

    private void setProperty(String name, String value) {
        if (!previousProperties.containsKey(name)) {
            previousProperties.put(name, System.getProperty(name));
        }
        System.setProperty(name, value);
    }

    private void route() throws GeneralSecurityException {
        previousContext = SSLContext.getDefault();
        previousHttpsFactory = HttpsURLConnection.getDefaultSSLSocketFactory();
        previousSelector = ProxySelector.getDefault();
        SSLContext.setDefault(sslContext);
        HttpsURLConnection.setDefaultSSLSocketFactory(sslContext.getSocketFactory());
        ProxySelector.setDefault(proxySelector);
        setProperty("javax.net.ssl.trustStore", trustStore.toString());
        setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        setProperty("javax.net.ssl.trustStorePassword", TRUST_STORE_PASSWORD);
        setProperty("GOOGLE_CLOUD_PROJECT", projectId);
        setProperty("fcmemu.credentials", keyFile.toString());
        setProperty("fcmemu.projectId", projectId);
        setProperty("fcmemu.controlApi", emulator.controlUrl());
        setProperty("fcmemu.metadataHost", metadataHost());
        if (proxyProperties) {
            InetSocketAddress address = (InetSocketAddress) proxySelector.proxy().address();
            setProperty("https.proxyHost", address.getHostString());
            setProperty("https.proxyPort", Integer.toString(address.getPort()));
        }
    }

    /** Puts the JVM's defaults and properties back as they were, and deletes the directory. */
    @Override
    public void close() {
        synchronized (LOCK) {
            if (!installed) {
                return;
            }
            installed = false;
            if (previousContext != null) {
                SSLContext.setDefault(previousContext);
                HttpsURLConnection.setDefaultSSLSocketFactory(previousHttpsFactory);
                ProxySelector.setDefault(previousSelector);
                previousContext = null;
            }
            previousProperties.forEach((name, value) -> {
                if (value == null) {
                    System.clearProperty(name);
                } else {
                    System.setProperty(name, value);
                }
            });
            previousProperties.clear();
            if (directory != null) {
                try (var files = Files.walk(directory)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                } catch (IOException ignored) {
                    // best effort
                }
                directory = null;
            }
        }
    }

    // -- what it gives -----------------------------------------------------------------------------

    private void requireInstalled() {
        if (!installed) {
            throw new IllegalStateException("the Firebase environment is not installed (call install())");
        }
    }

    /** @return the project the SDK acts for */
    public String projectId() {
        return projectId;
    }

    /** @return the emulator */
    public FcmEmulator emulator() {
        return emulator;
    }

    /** @return the service-account key file (0600) whose {@code token_uri} is the emulator */
    public Path keyFile() {
        requireInstalled();
        return keyFile;
    }

    /** @return the PKCS12 trust store: the JDK's default CAs and the emulator's */
    public Path trustStore() {
        requireInstalled();
        return trustStore;
    }

    /** @return the same CAs as a PEM bundle (for {@code SSL_CERT_FILE} and the like) */
    public Path caBundle() {
        requireInstalled();
        return caBundle;
    }

    /** @return the emulator's CA certificate (PEM) */
    public Path caCertificate() {
        requireInstalled();
        return caFile;
    }

    /** @return how many of the JDK's default CAs the trust store holds */
    public int jdkCertificateCount() {
        return jdkCertificates;
    }

    /** @return the SSL context installed as the JVM's default */
    public SSLContext sslContext() {
        requireInstalled();
        return sslContext;
    }

    /** @return the proxy selector installed as the JVM's default */
    public GoogleProxySelector proxySelector() {
        requireInstalled();
        return proxySelector;
    }

    /** @return {@code host:port} of the emulator's GCE metadata server (its HTTP port) */
    public String metadataHost() {
        URI uri = URI.create(emulator.httpUrl());
        return uri.getHost() + ":" + uri.getPort();
    }

    /**
     * The options that route a child JVM: {@code -Dhttps.proxyHost}, {@code -Dhttps.proxyPort},
     * {@code -Dhttp.nonProxyHosts} (loopback), and the trust store with its type and password.
     *
     * @return the value for {@code JAVA_TOOL_OPTIONS}
     */
    public String javaToolOptions() {
        requireInstalled();
        InetSocketAddress address = (InetSocketAddress) proxySelector.proxy().address();
        return String.join(" ", "-Dhttps.proxyHost=" + address.getHostString(), "-Dhttps.proxyPort=" + address.getPort(),
                "-Dhttp.nonProxyHosts=localhost|127.*|[::1]", "-Djavax.net.ssl.trustStore=" + trustStore,
                "-Djavax.net.ssl.trustStoreType=PKCS12", "-Djavax.net.ssl.trustStorePassword=" + TRUST_STORE_PASSWORD);
    }

    /**
     * The environment of a child process that uses the key file (as {@code fcm-emu env} prints it).
     *
     * @return the variables
     */
    public Map<String, String> environment() {
        return environment(false);
    }

    /**
     * The environment of a child process.
     *
     * @param metadata true: Application Default Credentials from the emulator's GCE metadata server
     *     ({@code GCE_METADATA_HOST}, {@code GCE_METADATA_IP}); false: the key file
     *     ({@code GOOGLE_APPLICATION_CREDENTIALS})
     * @return the variables
     */
    public Map<String, String> environment(boolean metadata) {
        requireInstalled();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("GOOGLE_CLOUD_PROJECT", projectId);
        env.put("GCLOUD_PROJECT", projectId);
        env.put("FIREBASE_CONFIG", Json.write(Map.of("projectId", projectId)));
        if (metadata) {
            env.put("GCE_METADATA_HOST", metadataHost());
            env.put("GCE_METADATA_IP", metadataHost());
        } else {
            env.put("GOOGLE_APPLICATION_CREDENTIALS", keyFile.toString());
        }
        String proxy = emulator.proxyUrl();
        env.put("HTTPS_PROXY", proxy);
        env.put("https_proxy", proxy);
        env.put("NO_PROXY", "127.0.0.1,localhost,::1");
        env.put("no_proxy", "127.0.0.1,localhost,::1");
        env.put("NODE_USE_ENV_PROXY", "1");
        env.put("JAVA_TOOL_OPTIONS", javaToolOptions());
        env.put("NODE_EXTRA_CA_CERTS", caFile.toString());
        env.put("SSL_CERT_FILE", caBundle.toString());
        env.put("REQUESTS_CA_BUNDLE", caBundle.toString());
        env.put("CURL_CA_BUNDLE", caBundle.toString());
        env.put("FCM_EMU_URL", emulator.httpUrl());
        env.put("FCM_EMU_CONTROL_API", emulator.controlUrl());
        if (emulator.httpsUrl() != null) {
            env.put("FCM_EMU_HTTPS_URL", emulator.httpsUrl());
        }
        env.put("FCM_EMU_PROXY", proxy);
        env.put("FCM_EMU_CA", caFile.toString());
        env.put("FCM_EMU_PROJECT", projectId);
        return env;
    }

    @Override
    public String toString() {
        return "FirebaseEnvironment(" + projectId + ", " + (installed ? "installed" : "not installed") + ")";
    }
}
