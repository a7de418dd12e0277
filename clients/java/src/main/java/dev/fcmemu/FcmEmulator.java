package dev.fcmemu;

import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One fcm-emu emulator: started here ({@link #start()}, {@link #builder()}) on free ports, or
 * attached to ({@link #attach(String)}). Close it (try-with-resources) to stop a started one.
 *
 * <pre>{@code
 * try (FcmEmulator emulator = FcmEmulator.start()) {
 *     Device phone = emulator.demoProject().createDevice(Platform.ANDROID, "pixel");
 *     ...
 * }
 * }</pre>
 *
 * <p>A started emulator never outlives this JVM: it runs under a small {@code /bin/sh} watchdog
 * whose standard input is a pipe from this JVM. When the JVM ends in any way, a {@code kill -9}
 * included, the pipe closes and the watchdog stops the emulator (SIGTERM, so it removes its
 * temporary files). A shutdown hook also stops every emulator still running at a normal exit.
 */
public final class FcmEmulator implements AutoCloseable {
    /** The environment variable naming the fcm-emu binary. */
    public static final String BINARY_ENV = "FCM_EMU_BIN";

    /**
     * The watchdog (POSIX sh). It keeps this JVM's pipe as fd 8 and starts the emulator without
     * it; a reader in a subshell waits for the pipe's end of file (every writer gone: this JVM
     * closed it or died) and then sends SIGTERM to the emulator. A signal to the watchdog is
     * passed on the same way. The watchdog exits with the emulator's status once it has exited,
     * ending the reader. When the reader had ended (the pipe closed: this JVM is gone or stopped
     * the emulator), it also removes the working directory named by FCM_EMU_WATCHDOG_REMOVE.
     */
    static final String WATCHDOG = String.join("\n",
            "exec 8<&0 </dev/null",
            "\"$@\" 8<&- &",
            "emulator=$!",
            "( while read -r ignored; do :; done; kill -TERM \"$emulator\" 2>/dev/null ) <&8 &",
            "reader=$!",
            "exec 8<&-",
            "trap 'kill -TERM \"$emulator\" 2>/dev/null' HUP INT TERM",
            "status=0",
            "while kill -0 \"$emulator\" 2>/dev/null; do wait \"$emulator\"; status=$?; done",
            "if kill -0 \"$reader\" 2>/dev/null; then kill \"$reader\" 2>/dev/null",
            "elif [ -n \"${FCM_EMU_WATCHDOG_REMOVE:-}\" ]; then rm -rf -- \"$FCM_EMU_WATCHDOG_REMOVE\"; fi",
            "exit \"$status\"");

    private static final Set<FcmEmulator> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile boolean hookInstalled;

    private final Builder options;
    private final boolean attached;
    private Process watchdog;
    private OutputStream lifeline;
    private Path workdir;
    private Path logPath;
    private Map<String, Object> ready = Map.of();
    private Client client;
    private Integer exitCode;

    private FcmEmulator(Builder options, boolean attached) {
        this.options = options;
        this.attached = attached;
    }

    /** @return options for an emulator to start */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts an emulator with the defaults: every port chosen by the system, the HTTPS proxy on,
     * nothing kept on disk.
     *
     * @return the running emulator
     * @throws EmulatorNotReadyException when it did not become ready
     */
    public static FcmEmulator start() {
        return builder().start();
    }

    /**
     * Attaches to a running emulator; {@link #close()} then leaves it running. Its addresses (TLS,
     * proxy, CA) are read from its {@code info}.
     *
     * @param controlApiUrl its control API base, such as {@code http://127.0.0.1:9092/emulator/v1}
     * @return the emulator
     */
    public static FcmEmulator attach(String controlApiUrl) {
        FcmEmulator emulator = new FcmEmulator(builder(), true);
        emulator.client = new Client(controlApiUrl);
        emulator.ready = Collections.unmodifiableMap(emulator.client.info());
        return emulator;
    }

    /**
     * Attaches to {@code $FCM_EMU_CONTROL_API} when it is set, else starts one as {@code options} says.
     *
     * @param options how to start one
     * @return the emulator
     */
    public static FcmEmulator startOrAttach(Builder options) {
        String url = System.getenv(Client.CONTROL_API_ENV);
        return url == null || url.isEmpty() ? options.start() : attach(url);
    }

    /**
     * Finds the fcm-emu executable: {@code explicit}, else {@code $FCM_EMU_BIN}, else
     * {@code fcm-emu} on {@code PATH}.
     *
     * @param explicit a path, or null
     * @return the executable
     * @throws FcmEmuException when there is none
     */
    public static Path findBinary(Path explicit) {
        if (explicit != null) {
            if (Files.isExecutable(explicit)) {
                return explicit;
            }
            throw new FcmEmuException("the fcm-emu binary " + explicit + " is not an executable file", null);
        }
        String env = System.getenv(BINARY_ENV);
        if (env != null && !env.isEmpty()) {
            Path path = Path.of(env);
            if (Files.isExecutable(path)) {
                return path;
            }
            throw new FcmEmuException(BINARY_ENV + "=" + env + " is not an executable file", null);
        }
        String pathVar = System.getenv("PATH");
        if (pathVar != null) {
            for (String dir : pathVar.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    Path candidate = Path.of(dir, "fcm-emu");
                    if (Files.isExecutable(candidate)) {
                        return candidate;
                    }
                }
            }
        }
        throw new FcmEmuException("no fcm-emu binary: set " + BINARY_ENV + " or put fcm-emu on PATH", null);
    }

    /** Options for an emulator to start. */
    public static final class Builder {
        private Path binary;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final List<String> args = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private String host = "127.0.0.1";
        private String logLevel = "info";
        private Duration startupTimeout = Duration.ofSeconds(30);
        private Duration stopTimeout = Duration.ofSeconds(10);
        private boolean keepWorkdir;

        private Builder() {
            settings.put("port", "0");
            settings.put("tlsPort", "0");
            settings.put("xmppPort", "0");
            settings.put("xmppTestPort", "off");
            settings.put("proxyPort", "0");
            settings.put("stateDir", "none");
        }

        /**
         * @param binary the fcm-emu executable (default: {@link #findBinary(Path)})
         * @return this builder
         */
        public Builder binary(Path binary) {
            this.binary = binary;
            return this;
        }

        /**
         * A {@code --set key=value} setting; it overrides the defaults (free ports for HTTP, TLS,
         * XMPP and the proxy; {@code stateDir=none}).
         *
         * @param key a setting's name, as {@code fcm-emu serve --help} lists them
         * @param value its value
         * @return this builder
         */
        public Builder setting(String key, Object value) {
            settings.put(key, String.valueOf(value));
            return this;
        }

        /**
         * @param stateDir where the emulator keeps keys and snapshots (default: nothing on disk)
         * @return this builder
         */
        public Builder stateDir(Path stateDir) {
            return setting("stateDir", stateDir.toString());
        }

        /**
         * @param paused whether the clock starts paused (it then moves only with advance)
         * @return this builder
         */
        public Builder clockPaused(boolean paused) {
            return setting("clockPaused", paused);
        }

        /**
         * @param more further {@code serve} arguments
         * @return this builder
         */
        public Builder args(String... more) {
            args.addAll(List.of(more));
            return this;
        }

        /**
         * @param name an environment variable for the emulator process
         * @param value its value
         * @return this builder
         */
        public Builder env(String name, String value) {
            env.put(name, value);
            return this;
        }

        /**
         * @param host the address to listen on (default 127.0.0.1)
         * @return this builder
         */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /**
         * @param level {@code serve --log-level} (default info)
         * @return this builder
         */
        public Builder logLevel(String level) {
            this.logLevel = level;
            return this;
        }

        /**
         * @param timeout how long to wait for the ready file (default 30 s)
         * @return this builder
         */
        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = timeout;
            return this;
        }

        /**
         * @param timeout how long {@link FcmEmulator#close()} waits after SIGTERM before SIGKILL (default 10 s)
         * @return this builder
         */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = timeout;
            return this;
        }

        /**
         * @param keep keep the ready file and the log after the emulator stops
         * @return this builder
         */
        public Builder keepWorkdir(boolean keep) {
            this.keepWorkdir = keep;
            return this;
        }

        /** @return the settings, as {@code --set} will pass them */
        public Map<String, String> settings() {
            return Collections.unmodifiableMap(settings);
        }

        /**
         * Starts the emulator and waits for its ready file.
         *
         * @return the running emulator
         * @throws EmulatorNotReadyException when it exited or was not ready in time
         */
        public FcmEmulator start() {
            FcmEmulator emulator = new FcmEmulator(this, false);
            emulator.launch();
            return emulator;
        }
    }

    /**
     * The {@code serve} command line this emulator runs (without the watchdog).
     *
     * @param binary the executable
     * @param readyFile where the ready file goes
     * @return the arguments
     */
    List<String> command(Path binary, Path readyFile) {
        List<String> argv = new ArrayList<>(List.of(binary.toString(), "serve", "--host", options.host,
                "--port", options.settings.get("port"), "--ready-file", readyFile.toString(), "--log-level", options.logLevel));
        options.settings.forEach((key, value) -> {
            if (!key.equals("port")) {
                argv.add("--set");
                argv.add(key + "=" + value);
            }
        });
        argv.addAll(options.args);
        return argv;
    }

    private static void installHook() {
        if (hookInstalled) {
            return;
        }
        synchronized (LIVE) {
            if (hookInstalled) {
                return;
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                for (FcmEmulator emulator : LIVE) {
                    emulator.stopQuietly(Duration.ofSeconds(5));
                }
            }, "fcm-emu-shutdown"));
            hookInstalled = true;
        }
    }

    private void launch() {
        Path binary = findBinary(options.binary);
        try {
            workdir = Files.createTempDirectory("fcm-emu-java-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new FcmEmuException("cannot make a temporary directory: " + e, e);
        }
        Path readyFile = workdir.resolve("ready.json");
        logPath = workdir.resolve("serve.log");
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", WATCHDOG, "fcm-emu-watchdog"));
        argv.addAll(command(binary, readyFile));
        ProcessBuilder builder = new ProcessBuilder(argv)
                .directory(workdir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logPath.toFile());
        builder.environment().putAll(options.env);
        if (!options.keepWorkdir) {
            builder.environment().put("FCM_EMU_WATCHDOG_REMOVE", workdir.toString());
        }
        installHook();
        try {
            watchdog = builder.start();
        } catch (IOException e) {
            deleteWorkdir();
            throw new FcmEmuException("cannot start " + binary + ": " + e, e);
        }
        lifeline = watchdog.getOutputStream();
        LIVE.add(this);
        try {
            ready = Collections.unmodifiableMap(waitReady(readyFile));
            client = new Client(httpUrl(), Json.str(ready, "controlToken"), Client.DEFAULT_TIMEOUT);
        } catch (RuntimeException | Error e) {
            stopQuietly(options.stopTimeout);
            throw e;
        }
    }

    private Map<String, Object> waitReady(Path readyFile) {
        long deadline = System.nanoTime() + options.startupTimeout.toNanos();
        long delayMillis = 5;
        while (true) {
            try {
                String text = Files.readString(readyFile, StandardCharsets.UTF_8);
                if (!text.isBlank()) {
                    return Json.parseObject(text);
                }
            } catch (NoSuchFileException absent) {
                // not written yet
            } catch (IOException | IllegalArgumentException partial) {
                // being written: read it again
            }
            if (!watchdog.isAlive()) {
                throw new EmulatorNotReadyException("fcm-emu exited with code " + watchdog.exitValue()
                        + " before it was ready", logPath, logTail(40));
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new EmulatorNotReadyException("fcm-emu was not ready after " + options.startupTimeout.toMillis()
                        + " ms", logPath, logTail(40));
            }
            try {
                // Waits on the process itself, so that an exit ends the wait at once.
                watchdog.waitFor(Math.min(delayMillis, TimeUnit.NANOSECONDS.toMillis(remaining) + 1), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EmulatorNotReadyException("interrupted while waiting for fcm-emu", logPath, logTail(40));
            }
            delayMillis = Math.min(delayMillis * 2, 100);
        }
    }

    private synchronized void stopQuietly(Duration timeout) {
        if (watchdog == null || exitCode != null) {
            return;
        }
        try {
            // Closing the pipe is the watchdog's signal: it sends the emulator one SIGTERM.
            try {
                lifeline.close();
            } catch (IOException ignored) {
                // the watchdog is gone already
            }
            if (!watchdog.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                Object pid = ready.get("pid");
                if (pid instanceof Number) {
                    ProcessHandle.of(((Number) pid).longValue()).ifPresent(ProcessHandle::destroyForcibly);
                }
                watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
                watchdog.destroyForcibly();
                watchdog.waitFor(10, TimeUnit.SECONDS);
            }
            exitCode = watchdog.isAlive() ? -1 : watchdog.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
            watchdog.destroyForcibly();
            exitCode = -1;
        } finally {
            LIVE.remove(this);
        }
    }

    /**
     * Stops a started emulator (SIGTERM, then SIGKILL after the stop timeout) and removes its
     * working directory; does nothing for an attached one.
     *
     * @return the emulator's exit code (0 after a clean stop), or null for an attached one
     */
    public Integer stop() {
        if (attached || watchdog == null) {
            return null;
        }
        stopQuietly(options.stopTimeout);
        if (!options.keepWorkdir) {
            deleteWorkdir();
        }
        return exitCode;
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private void deleteWorkdir() {
        if (workdir == null) {
            return;
        }
        try (var files = Files.walk(workdir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }

    /**
     * @param lines how many
     * @return the last lines of the emulator's log (started emulators only)
     */
    public String logTail(int lines) {
        if (logPath == null || !Files.exists(logPath)) {
            return "";
        }
        try (RandomAccessFile file = new RandomAccessFile(logPath.toFile(), "r")) {
            long start = Math.max(0, file.length() - 64 * 1024);
            byte[] buffer = new byte[(int) (file.length() - start)];
            file.seek(start);
            file.readFully(buffer);
            String[] all = new String(buffer, StandardCharsets.UTF_8).split("\n");
            return String.join("\n", java.util.Arrays.asList(all).subList(Math.max(0, all.length - lines), all.length));
        } catch (IOException e) {
            return "";
        }
    }

    // -- what it offers ----------------------------------------------------------------------------

    /** @return whether this object attached to an emulator it did not start */
    public boolean attached() {
        return attached;
    }

    /** @return whether the emulator is up: the process lives (started) or it was attached to */
    public boolean running() {
        return attached || (watchdog != null && watchdog.isAlive() && exitCode == null);
    }

    /** @return the ready file's JSON (or {@code info}'s, when attached) */
    public Map<String, Object> ready() {
        return ready;
    }

    /** @return the control API client */
    public Client client() {
        if (client == null) {
            throw new IllegalStateException("the emulator is not started");
        }
        return client;
    }

    /**
     * @param projectId a project id
     * @return a handle on it (no call is made)
     */
    public Project project(String projectId) {
        return client().project(projectId);
    }

    /** @return the demo project ({@code demo-fcm-emu}: any bearer token is accepted) */
    public Project demoProject() {
        return project(demoProjectId());
    }

    /**
     * Creates a new project with a unique id ({@code test-…}) whose tokens are checked as FCM does.
     *
     * @return the new project
     */
    public Project newProject() {
        String id = "test-" + Long.toString(System.nanoTime() & 0xffffffffffL, 36) + "-"
                + Integer.toString(java.util.concurrent.ThreadLocalRandom.current().nextInt(1 << 20), 36);
        return client().createProject(id, null);
    }

    /** @return the demo project's id */
    public String demoProjectId() {
        String id = Json.str(Json.obj(ready, "demoProject"), "projectId");
        return id != null ? id : "demo-fcm-emu";
    }

    /** @return the control API base, {@code http://127.0.0.1:PORT/emulator/v1} */
    public String controlUrl() {
        return client().baseUrl();
    }

    /** @return the plain HTTP base URL (FCM's APIs, the metadata server and the control API) */
    public String httpUrl() {
        String url = Json.str(Json.obj(ready, "http"), "url");
        return url != null ? url : client.baseUrl().substring(0, client.baseUrl().length() - "/emulator/v1".length());
    }

    /** @return the TLS (HTTP/2) base URL, or null when TLS is off */
    public String httpsUrl() {
        return Json.str(Json.obj(ready, "https"), "url");
    }

    /** @return the HTTPS proxy's URL ({@code http://127.0.0.1:PORT}), or null when the proxy is off */
    public String proxyUrl() {
        return Json.str(Json.obj(ready, "proxy"), "url");
    }

    /** @return the path of the PEM file of the CA that signs the emulator's TLS certificates, or null */
    public Path caCertificate() {
        String path = Json.str(ready, "caCertificate");
        return path == null ? null : Path.of(path);
    }

    /** @return the XMPP (CCS) ports */
    public List<Integer> xmppPorts() {
        List<Integer> out = new ArrayList<>();
        Object ports = Json.obj(ready, "xmpp").get("ports");
        if (ports instanceof List) {
            for (Object p : (List<?>) ports) {
                if (p instanceof Number) {
                    out.add(((Number) p).intValue());
                }
            }
        }
        return out;
    }

    /** @return the emulator's process id (from the ready file), or -1 */
    public long pid() {
        return Json.num(ready, "pid", -1);
    }

    /** @return the watchdog process of a started emulator (null when attached) */
    public Process process() {
        return watchdog;
    }

    /**
     * The environment (key file, trust, proxy) that routes the Admin SDK in this JVM to the
     * emulator, for {@code projectId}; install it with {@link FirebaseEnvironment#install()}.
     *
     * @param projectId the project the SDK acts for
     * @return the environment, not yet installed
     */
    public FirebaseEnvironment firebaseEnvironment(String projectId) {
        return new FirebaseEnvironment(this, projectId);
    }

    @Override
    public String toString() {
        return "FcmEmulator(" + (client != null ? client.baseUrl() : "-") + ", "
                + (attached ? "attached" : running() ? "running" : "stopped") + ")";
    }
}
