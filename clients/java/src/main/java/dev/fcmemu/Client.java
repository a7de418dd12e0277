package dev.fcmemu;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The control API ({@code /emulator/v1}) of one emulator, typed.
 *
 * <p>Every method is one call of the API (its OpenAPI {@code operationId} is named in the doc
 * comment). Failures throw {@link FcmEmuException}, which carries the API's own error message.
 * Calls that do not wait time out after {@link #timeout()}; calls that wait get their wait on top.
 * The client never uses a proxy and does not depend on the JVM's default SSL context or proxy
 * selector, so it keeps working while a {@link FirebaseEnvironment} routes Google's hosts.
 *
 * <pre>{@code
 * Client client = new Client("http://127.0.0.1:9092/emulator/v1");
 * Device pixel = client.project("demo-fcm-emu").createDevice(Platform.ANDROID, "pixel");
 * }</pre>
 */
public final class Client {
    /** The environment variable naming a running emulator's control API base URL. */
    public static final String CONTROL_API_ENV = "FCM_EMU_CONTROL_API";
    /** The environment variable holding the control token of an emulator beyond loopback. */
    public static final String CONTROL_TOKEN_ENV = "FCM_EMU_CONTROL_TOKEN";
    /** The default timeout of a call that does not wait. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final String baseUrl;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * A client with the default timeout and the token from {@code FCM_EMU_CONTROL_TOKEN}, if set.
     *
     * @param baseUrl the control API base, such as {@code http://127.0.0.1:9092/emulator/v1} (a
     *     bare {@code http://host:port} gets {@code /emulator/v1} appended)
     */
    public Client(String baseUrl) {
        this(baseUrl, null, DEFAULT_TIMEOUT);
    }

    /**
     * @param baseUrl the control API base (see {@link #Client(String)})
     * @param token the control token sent as {@code Authorization: Bearer}; null takes
     *     {@code FCM_EMU_CONTROL_TOKEN} (none on loopback, where none is asked)
     * @param timeout how long a call that does not wait may take
     */
    public Client(String baseUrl, String token, Duration timeout) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        if (!base.endsWith("/emulator/v1")) {
            base += "/emulator/v1";
        }
        this.baseUrl = base;
        String envToken = System.getenv(CONTROL_TOKEN_ENV);
        this.token = token != null ? token : (envToken == null || envToken.isEmpty() ? null : envToken);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .proxy(HttpClient.Builder.NO_PROXY)
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
    }

    /**
     * @return a client for {@code $FCM_EMU_CONTROL_API}
     * @throws FcmEmuException when the variable is not set
     */
    public static Client fromEnv() {
        String url = System.getenv(CONTROL_API_ENV);
        if (url == null || url.isEmpty()) {
            throw new FcmEmuException(CONTROL_API_ENV + " is not set (it names a running emulator's control API, "
                    + "e.g. http://127.0.0.1:9092/emulator/v1)", null);
        }
        return new Client(url);
    }

    /** @return the control API base URL, ending in {@code /emulator/v1} */
    public String baseUrl() {
        return baseUrl;
    }

    /** @return the timeout of a call that does not wait */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public String toString() {
        return "Client(" + baseUrl + ")";
    }

    // -- transport ---------------------------------------------------------------------------------

    /**
     * An answer of the control API.
     *
     * @param status the HTTP status
     * @param headers the headers (lower-case names, first value)
     * @param body the body as text
     */
    public record Response(int status, Map<String, String> headers, String body) {
        /** @return the body as a JSON object ({@code {}} for an empty body) */
        public Map<String, Object> json() {
            return body.isBlank() ? new LinkedHashMap<>() : Json.parseObject(body);
        }

        /** @return the {@code Emulator-Wait} header: true (satisfied), false (timeout), null (no wait) */
        public Boolean waitSatisfied() {
            String value = headers.get("emulator-wait");
            return value == null ? null : value.equals("satisfied");
        }
    }

    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder builder(String method, String path, Map<String, String> query, Object body,
                                        String accept, Duration callTimeout) {
        StringBuilder url = new StringBuilder(baseUrl).append(path);
        if (query != null && !query.isEmpty()) {
            url.append('?').append(query.entrySet().stream().filter(e -> e.getValue() != null)
                    .map(e -> segment(e.getKey()) + "=" + segment(e.getValue())).collect(Collectors.joining("&")));
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url.toString()))
                .timeout(callTimeout)
                .header("Accept", accept);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(Json.write(body), StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return request;
    }

    /**
     * Makes one call and reads the whole answer.
     *
     * @param method the HTTP method
     * @param path the path below the base, such as {@code /projects}
     * @param query query parameters (null values are left out), or null
     * @param body a value sent as JSON ({@code Content-Type: application/json}), or null
     * @param callTimeout how long the call may take
     * @return the answer
     * @throws FcmEmuException for a non-2xx answer or when no answer came
     */
    public Response request(String method, String path, Map<String, String> query, Object body, Duration callTimeout) {
        HttpRequest request = builder(method, path, query, body, "application/json", callTimeout).build();
        HttpResponse<String> answer;
        try {
            answer = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new FcmEmuException(method + " " + request.uri() + ": cannot reach the emulator: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FcmEmuException(method + " " + request.uri() + ": interrupted", e);
        }
        if (answer.statusCode() < 200 || answer.statusCode() > 299) {
            throw FcmEmuException.fromResponse(answer.statusCode(), answer.body(), method, request.uri().toString());
        }
        Map<String, String> headers = new LinkedHashMap<>();
        answer.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.isEmpty() ? "" : v.get(0)));
        return new Response(answer.statusCode(), headers, answer.body());
    }

    private Map<String, Object> json(String method, String path, Object body) {
        return request(method, path, null, body, timeout).json();
    }

    private Map<String, Object> get(String path) {
        return json("GET", path, null);
    }

    /** Every item of a list the API may page ({@code nextOffset} names the next page). */
    private List<Map<String, Object>> paged(String path, String key) {
        List<Map<String, Object>> out = new ArrayList<>();
        Map<String, String> query = null;
        while (true) {
            Map<String, Object> page = request("GET", path, query, null, timeout).json();
            out.addAll(Json.objects(page, key));
            Object next = page.get("nextOffset");
            if (!(next instanceof Number)) {
                return out;
            }
            query = Map.of("offset", next.toString());
        }
    }

    private Duration waitTimeout(Duration wait) {
        return wait == null ? timeout : timeout.plus(wait);
    }

    private static Map<String, Object> body(Object... keyValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] != null) {
                out.put((String) keyValues[i], keyValues[i + 1]);
            }
        }
        return out;
    }

    // -- the emulator ------------------------------------------------------------------------------

    /** {@code health}: @return the answer ({@code {"status": "ok"}} once ready) */
    public Map<String, Object> health() {
        return get("/health");
    }

    /** @return whether {@code health} answers ok (false when the emulator cannot be reached) */
    public boolean isHealthy() {
        try {
            return "ok".equals(Json.str(health(), "status"));
        } catch (FcmEmuException e) {
            return false;
        }
    }

    /** {@code info}: @return bound addresses, demo project, CA path (as the ready file) */
    public Map<String, Object> info() {
        return get("/info");
    }

    /** {@code openapi}: @return this API as an OpenAPI 3 document */
    public Map<String, Object> openapi() {
        return get("/openapi.json");
    }

    /**
     * {@code caCertificate}: the PEM of the local CA that signs the emulator's TLS certificates
     * (for an emulator whose files this process cannot read: a container, another machine).
     *
     * @return the PEM text
     */
    public String caCertificate() {
        return request("GET", "/ca.pem", null, null, timeout).body();
    }

    /**
     * {@code metrics}: counters and gauges (accepted messages by API, refusals by code, deliveries,
     * devices by state, ...) for a test to assert on totals.
     *
     * @return the text, in Prometheus's text format 0.0.4
     */
    public String metrics() {
        return request("GET", "/metrics", null, null, timeout).body();
    }

    /**
     * {@code listConnections}: who holds connections to the HTTP ports (address, user agent, port,
     * connections and HTTP/2 streams opened and open, requests), most open first: a leaking pool shows.
     *
     * @return one map per client, as the API answers
     */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> connections() {
        Object clients = request("GET", "/connections", null, null, timeout).json().get("clients");
        return clients instanceof List ? (List<Map<String, Object>>) clients : List.of();
    }

    /** {@code resetAll}: deletes every project but the demo project, all devices, events, timers. */
    public void reset() {
        json("POST", "/reset", Map.of());
    }

    // -- snapshots ---------------------------------------------------------------------------------

    /**
     * {@code exportSnapshot}: writes the world as snapshot {@code name} under the state directory
     * (needs an emulator with one).
     *
     * @param name the snapshot's name
     * @param include what to include besides the world: {@code events}, {@code inboxes}
     * @return {@code {"name", "manifest"}}
     */
    public Map<String, Object> exportSnapshot(String name, String... include) {
        return request("POST", ":export", null, body("name", name, "include", include.length == 0 ? null : List.of(include)),
                timeout.plus(Duration.ofMinutes(2))).json();
    }

    /**
     * {@code importSnapshot}: replaces the world with snapshot {@code name}.
     *
     * @param name the snapshot's name
     * @param clock {@code snapshot} or {@code wall}, or null for the emulator's setting
     * @return {@code {"clock", "manifest"}}
     */
    public Map<String, Object> importSnapshot(String name, String clock) {
        return request("POST", ":import", null, body("name", name, "clock", clock), timeout.plus(Duration.ofMinutes(2))).json();
    }

    // -- the clock ---------------------------------------------------------------------------------

    /** {@code getClock}: @return the emulator's time, mode, speed and pending timers */
    public Clock clock() {
        return Clock.fromJson(get("/clock"));
    }

    /**
     * {@code listTimers}: the clock's pending timers in the order they fire (a stored message's
     * {@code expiry}, a dozing device's {@code dozeMaintenance}, a {@code delivery} held by latency).
     *
     * @param offset how many to skip
     * @param limit at most this many (1 to 1000; 0 for the server's 100)
     * @return {@code timers} (each with {@code at}, {@code what}, {@code project}, {@code device},
     *     {@code messageId}), {@code total} and, when more follow, {@code nextOffset}
     */
    public Map<String, Object> timers(int offset, int limit) {
        Map<String, String> query = new LinkedHashMap<>();
        if (offset > 0) {
            query.put("offset", Integer.toString(offset));
        }
        if (limit > 0) {
            query.put("limit", Integer.toString(limit));
        }
        return request("GET", "/clock/timers", query, null, timeout).json();
    }

    /** {@code listTimers}: @return the first page (up to 100) of the pending timers, as {@link #timers(int, int)} */
    public Map<String, Object> timers() {
        return timers(0, 0);
    }

    /**
     * {@code advanceClock}: moves the clock forward, firing everything due on the way (TTL
     * expiry, Doze windows, latencies).
     *
     * @param by how far
     * @return the clock afterwards
     */
    public Clock advanceClock(Duration by) {
        return Clock.fromJson(json("POST", "/clock:advance", Map.of("by", by.toMillis())));
    }

    /**
     * {@code advanceClock} to an instant.
     *
     * @param to the instant to move to
     * @return the clock afterwards
     */
    public Clock advanceClockTo(java.time.Instant to) {
        return Clock.fromJson(json("POST", "/clock:advance", Map.of("to", to.toString())));
    }

    /** {@code pauseClock}: @return the clock, paused (time then moves only with advance) */
    public Clock pauseClock() {
        return Clock.fromJson(json("POST", "/clock:pause", Map.of()));
    }

    /** {@code resumeClock}: @return the clock, following the wall again */
    public Clock resumeClock() {
        return Clock.fromJson(json("POST", "/clock:resume", Map.of()));
    }

    /**
     * {@code setClockSpeed}.
     *
     * @param speed relative to the wall; 60 runs a minute per second
     * @return the clock afterwards
     */
    public Clock setClockSpeed(double speed) {
        return Clock.fromJson(json("POST", "/clock:setSpeed", Map.of("speed", speed)));
    }

    // -- events ------------------------------------------------------------------------------------

    private EventList events(String path, EventQuery query) {
        Response answer = request("GET", path, query.params(), null, waitTimeout(query.waitTime()));
        List<Event> events = Json.objects(answer.json(), "events").stream().map(Event::fromJson)
                .collect(Collectors.toUnmodifiableList());
        return new EventList(events, answer.waitSatisfied());
    }

    /**
     * {@code listAllEvents}: the event log across projects, oldest first.
     *
     * @param query filters and an optional wait
     * @return the events
     */
    public EventList events(EventQuery query) {
        return events("/events", query);
    }

    /**
     * {@code listProjectEvents}.
     *
     * @param project the project id
     * @param query filters and an optional wait
     * @return the project's events
     */
    public EventList projectEvents(String project, EventQuery query) {
        return events("/projects/" + segment(project) + "/events", query);
    }

    /**
     * {@code listDeviceEvents}.
     *
     * @param project the project id
     * @param device the device's id, name or token
     * @param query filters and an optional wait
     * @return the device's events
     */
    public EventList deviceEvents(String project, String device, EventQuery query) {
        return events(devicePath(project, device) + "/events", query);
    }

    /**
     * {@code streamEvents} (and the project and device streams): the event log, live, as
     * Server-Sent Events. Close the stream when done.
     *
     * @param path {@code ""} for every project, {@code /projects/P} or {@code /projects/P/devices/D}
     * @param query filters (waits do not apply)
     * @param lastEventId resume after this sequence ({@code -1} replays every kept event), or null to start now
     * @return the open stream
     */
    public EventStream streamEvents(String path, EventQuery query, Long lastEventId) {
        Map<String, String> params = new LinkedHashMap<>(query.params());
        if (lastEventId != null) {
            params.put("lastEventId", lastEventId.toString());
        }
        HttpRequest request = builder("GET", path + "/events:stream", params, null, "text/event-stream",
                Duration.ofDays(1)).build();
        try {
            HttpResponse<InputStream> answer = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            if (answer.statusCode() != 200) {
                String text;
                try (InputStream in = answer.body()) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                throw FcmEmuException.fromResponse(answer.statusCode(), text, "GET", request.uri().toString());
            }
            return new EventStream(answer.body());
        } catch (IOException e) {
            throw new FcmEmuException("GET " + request.uri() + ": cannot reach the emulator: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FcmEmuException("GET " + request.uri() + ": interrupted", e);
        }
    }

    // -- fault rules -------------------------------------------------------------------------------

    /** {@code listFaults}: @return the fault rules in force */
    public List<FaultRule> faults() {
        return Json.objects(get("/faults"), "faults").stream().map(FaultRule::fromJson).collect(Collectors.toList());
    }

    /**
     * {@code addFault}: adds a rule (replacing one with the same id).
     *
     * @param rule the rule
     * @return the rule with its id
     */
    public FaultRule addFault(FaultRule rule) {
        return FaultRule.fromJson(json("POST", "/faults", rule.toJson()));
    }

    /**
     * {@code setFaults}: replaces every rule.
     *
     * @param rules the new rules
     * @return the rules in force
     */
    public List<FaultRule> setFaults(List<FaultRule> rules) {
        List<Object> list = rules.stream().map(FaultRule::toJson).collect(Collectors.toList());
        return Json.objects(json("PUT", "/faults", Map.of("faults", list)), "faults").stream()
                .map(FaultRule::fromJson).collect(Collectors.toList());
    }

    /** {@code clearFaults}: removes every rule. */
    public void clearFaults() {
        request("DELETE", "/faults", null, null, timeout);
    }

    /**
     * {@code getFault}.
     *
     * @param id the rule's id
     * @return the rule as posted, with its {@code id} and {@code fired} (how often it fired)
     */
    public Map<String, Object> fault(String id) {
        return get("/faults/" + segment(id));
    }

    /**
     * {@code removeFault}.
     *
     * @param id the rule's id
     * @return the rules left
     */
    public List<FaultRule> removeFault(String id) {
        return Json.objects(json("DELETE", "/faults/" + segment(id), null), "faults").stream()
                .map(FaultRule::fromJson).collect(Collectors.toList());
    }

    // -- projects ----------------------------------------------------------------------------------

    /**
     * @param projectId a project id
     * @return a handle on it (no call is made)
     */
    public Project project(String projectId) {
        return new Project(this, projectId);
    }

    /** {@code listProjects}: @return every project */
    public List<ProjectInfo> listProjects() {
        return paged("/projects", "projects").stream().map(ProjectInfo::fromJson).collect(Collectors.toList());
    }

    /**
     * {@code createProject}: ids starting with {@code demo-} accept any bearer token, as the
     * Firebase emulators do; others check tokens as FCM does.
     *
     * @param projectId 4–30 lower-case letters, digits or hyphens, starting with a letter
     * @param number the project number (sender id), or null to have one generated
     * @return a handle on the new project
     */
    public Project createProject(String projectId, String number) {
        ProjectInfo info = ProjectInfo.fromJson(json("POST", "/projects", body("id", projectId, "number", number)));
        return new Project(this, info.id());
    }

    /**
     * {@code createProject} with its Firebase Cloud Messaging API on or off from the start.
     *
     * @param projectId 4–30 lower-case letters, digits or hyphens, starting with a letter
     * @param number the project number (sender id), or null to have one generated
     * @param apiEnabled false: every v1 call of the project answers 403 SERVICE_DISABLED
     * @return a handle on the new project
     */
    public Project createProject(String projectId, String number, boolean apiEnabled) {
        ProjectInfo info = ProjectInfo.fromJson(json("POST", "/projects",
                body("id", projectId, "number", number, "apiEnabled", apiEnabled)));
        return new Project(this, info.id());
    }

    /**
     * {@code getProject}.
     *
     * @param project the project's id or number
     * @return the project
     */
    public ProjectInfo getProject(String project) {
        return ProjectInfo.fromJson(get("/projects/" + segment(project)));
    }

    /**
     * {@code updateProject}: turns the project's Firebase Cloud Messaging API on or off; off, every
     * v1 call answers 403 SERVICE_DISABLED, as for a project where the API was never enabled.
     *
     * @param project the project id
     * @param apiEnabled whether the v1 API answers
     * @return the project as changed
     */
    public ProjectInfo updateProject(String project, boolean apiEnabled) {
        return ProjectInfo.fromJson(json("PATCH", "/projects/" + segment(project), body("apiEnabled", apiEnabled)));
    }

    /**
     * {@code deleteProject}: the project and everything in it.
     *
     * @param project the project id
     */
    public void deleteProject(String project) {
        request("DELETE", "/projects/" + segment(project), null, null, timeout);
    }

    /**
     * {@code resetProject}: removes a project's devices, topics and groups.
     *
     * @param project the project id
     */
    public void resetProject(String project) {
        json("POST", "/projects/" + segment(project) + ":reset", Map.of());
    }

    /**
     * {@code getServiceAccount}: a service-account key file whose {@code token_uri} points at the
     * emulator, as the text of the JSON file (what {@code GOOGLE_APPLICATION_CREDENTIALS} names).
     *
     * @param project the project id
     * @return the key file's JSON text
     */
    public String serviceAccountJson(String project) {
        return request("GET", "/projects/" + segment(project) + "/serviceAccount", null, null, timeout).body();
    }

    /**
     * {@code createAccessToken}: an OAuth bearer for the project's v1 API, without the JWT exchange.
     *
     * @param project the project id
     * @return the token
     */
    public AccessToken createAccessToken(String project) {
        Map<String, Object> m = json("POST", "/projects/" + segment(project) + "/accessTokens", Map.of());
        return new AccessToken(Json.str(m, "accessToken"), Optional.ofNullable(Json.str(m, "tokenType")).orElse("Bearer"),
                Json.num(m, "expiresIn", 0));
    }

    /**
     * {@code revokeAccessTokens}: every bearer the project was issued until now gets 401 on its
     * next v1 call, as after a key rotation; tokens issued later work.
     *
     * @param project the project id
     */
    public void revokeAccessTokens(String project) {
        json("POST", "/projects/" + segment(project) + "/accessTokens:revoke", Map.of());
    }

    /**
     * {@code listTopics}.
     *
     * @param project the project id
     * @return the topics with subscriber counts
     */
    public List<Topic> topics(String project) {
        return paged("/projects/" + segment(project) + "/topics", "topics").stream()
                .map(m -> new Topic(Json.str(m, "name"), Json.num(m, "subscribers", 0))).collect(Collectors.toList());
    }

    /**
     * {@code listGroups}.
     *
     * @param project the project id
     * @return the legacy device groups
     */
    public List<Group> groups(String project) {
        return paged("/projects/" + segment(project) + "/groups", "groups").stream()
                .map(m -> new Group(Json.str(m, "name"), Json.str(m, "notificationKey"), Json.strings(m, "tokens")))
                .collect(Collectors.toList());
    }

    /**
     * {@code listXMPPConnections}.
     *
     * @param project the project id
     * @return its bound XMPP connections
     */
    public List<XmppConnection> xmppConnections(String project) {
        return Json.objects(get("/projects/" + segment(project) + "/xmpp"), "connections").stream()
                .map(m -> new XmppConnection(Json.str(m, "id"), Json.str(m, "sender"), Json.str(m, "state"),
                        Json.num(m, "inFlight", 0)))
                .collect(Collectors.toList());
    }

    /**
     * {@code drainXMPP}: CONNECTION_DRAINING to every XMPP connection of the project.
     *
     * @param project the project id
     */
    public void drainXmpp(String project) {
        json("POST", "/projects/" + segment(project) + "/xmpp:drain", Map.of());
    }

    // -- devices -----------------------------------------------------------------------------------

    private static String devicePath(String project, String device) {
        return "/projects/" + segment(project) + "/devices/" + segment(device);
    }

    private Device device(Map<String, Object> json) {
        return new Device(this, json);
    }

    /**
     * {@code listDevices}: one page, oldest first.
     *
     * @param project the project id
     * @param offset how many to skip
     * @param limit the page size (the server's default is 1000)
     * @return the page
     */
    public DevicePage listDevices(String project, int offset, int limit) {
        Map<String, Object> answer = request("GET", "/projects/" + segment(project) + "/devices",
                Map.of("offset", Integer.toString(offset), "limit", Integer.toString(limit)), null, timeout).json();
        List<Device> devices = Json.objects(answer, "devices").stream().map(this::device).collect(Collectors.toList());
        return new DevicePage(Json.num(answer, "total", devices.size()), devices);
    }

    /**
     * Every device of the project, page by page.
     *
     * @param project the project id
     * @return the devices, oldest first
     */
    public List<Device> allDevices(String project) {
        List<Device> out = new ArrayList<>();
        while (true) {
            DevicePage page = listDevices(project, out.size(), 1000);
            out.addAll(page.devices());
            if (page.devices().isEmpty() || out.size() >= page.total()) {
                return out;
            }
        }
    }

    /**
     * {@code createDevice}: a device whose token is generated in FCM's format.
     *
     * @param project the project id
     * @param spec what the device is (platform, name, state, topics, ...)
     * @return the new device
     */
    public Device createDevice(String project, NewDevice spec) {
        return device(json("POST", "/projects/" + segment(project) + "/devices", spec.toJson(null)));
    }

    /**
     * {@code createDevice} with {@code count}: that many identical devices (at most 10000 a call).
     *
     * @param project the project id
     * @param count how many
     * @param spec what each device is (its name and token are left out)
     * @return the new devices
     */
    public List<Device> createDevices(String project, int count, NewDevice spec) {
        Map<String, Object> answer = request("POST", "/projects/" + segment(project) + "/devices", null,
                spec.toJson(count), timeout.plus(Duration.ofMinutes(1))).json();
        if (answer.containsKey("devices")) {
            return Json.objects(answer, "devices").stream().map(this::device).collect(Collectors.toList());
        }
        return List.of(device(answer));
    }

    /**
     * {@code getDevice}.
     *
     * @param project the project id
     * @param device its id, name, or any token it holds or held
     * @return the device
     */
    public Device getDevice(String project, String device) {
        return device(get(devicePath(project, device)));
    }

    /**
     * {@code updateDevice}: changes the state and/or the allowed senders.
     *
     * @param project the project id
     * @param device the device
     * @param state the new state, or null
     * @param senders the allowed sender ids, or null
     * @return the device afterwards
     */
    public Device updateDevice(String project, String device, DeviceState state, List<String> senders) {
        return device(json("PATCH", devicePath(project, device),
                body("state", state == null ? null : state.wireName(), "senders", senders)));
    }

    /**
     * {@code deleteDevice}: its token then answers as unregistered.
     *
     * @param project the project id
     * @param device the device
     */
    public void deleteDevice(String project, String device) {
        request("DELETE", devicePath(project, device), null, null, timeout);
    }

    /**
     * {@code uninstallDevice}: the next delivery attempt invalidates the token.
     *
     * @param project the project id
     * @param device the device
     * @return the device afterwards
     */
    public Device uninstallDevice(String project, String device) {
        return device(json("POST", devicePath(project, device) + ":uninstall", Map.of()));
    }

    /**
     * {@code refreshToken}: a new token (or {@code token}); reinstalls an uninstalled app.
     *
     * @param project the project id
     * @param device the device
     * @param token the new token, or null for a generated one
     * @return the device afterwards
     */
    public Device refreshToken(String project, String device, String token) {
        return device(json("POST", devicePath(project, device) + ":refreshToken", body("token", token)));
    }

    /**
     * {@code subscribe}.
     *
     * @param project the project id
     * @param device the device
     * @param topic the topic it joins
     * @return the device afterwards
     */
    public Device subscribe(String project, String device, String topic) {
        return device(json("PUT", devicePath(project, device) + "/topics/" + segment(topic), null));
    }

    /**
     * {@code unsubscribe}.
     *
     * @param project the project id
     * @param device the device
     * @param topic the topic it leaves
     * @return the device afterwards
     */
    public Device unsubscribe(String project, String device, String topic) {
        return device(json("DELETE", devicePath(project, device) + "/topics/" + segment(topic), null));
    }

    /**
     * {@code getInbox}: what the app received, rendered for its platform, oldest first.
     *
     * @param project the project id
     * @param device the device
     * @return the inbox, read once, now
     */
    public Inbox inbox(String project, String device) {
        return inbox(project, device, 0, null);
    }

    /**
     * {@code getInbox} with a wait: the emulator answers as soon as the inbox holds
     * {@code waitFor} deliveries, or after {@code timeout} (at most 5 minutes) with what there is.
     *
     * @param project the project id
     * @param device the device
     * @param waitFor how many deliveries to wait for (0: no wait)
     * @param timeout the longest wait (wall time); null for the server's 30 s
     * @return the inbox; {@link Inbox#satisfied()} says whether the count was reached
     */
    public Inbox inbox(String project, String device, int waitFor, Duration timeout) {
        Map<String, String> query = new LinkedHashMap<>();
        if (waitFor > 0) {
            query.put("waitFor", Integer.toString(waitFor));
            if (timeout != null) {
                query.put("timeout", Times.duration(timeout));
            }
        }
        Duration wait = waitFor > 0 ? (timeout != null ? timeout : Duration.ofSeconds(30)) : null;
        Response answer = request("GET", devicePath(project, device) + "/inbox", query, null, waitTimeout(wait));
        Map<String, Object> data = answer.json();
        Object dev = data.get("device");
        @SuppressWarnings("unchecked")
        Device owner = dev instanceof Map ? device((Map<String, Object>) dev) : null;
        List<Delivery> deliveries = Json.objects(data, "deliveries").stream().map(Delivery::fromJson)
                .collect(Collectors.toUnmodifiableList());
        return new Inbox(owner, deliveries, answer.waitSatisfied());
    }

    /**
     * {@code clearInbox}.
     *
     * @param project the project id
     * @param device the device
     */
    public void clearInbox(String project, String device) {
        request("DELETE", devicePath(project, device) + "/inbox", null, null, timeout);
    }

    /**
     * {@code getStored}: what the device holds now (store and forward), in delivery order.
     *
     * @param project the project id
     * @param device the device
     * @return {@code device} and {@code stored} (each with {@code messageId}, {@code acceptedAt},
     *     {@code availableAt}, {@code expiresAt}, {@code priority}, {@code collapseKey}, …)
     */
    public Map<String, Object> stored(String project, String device) {
        return get(devicePath(project, device) + "/stored");
    }

    /**
     * {@code getTray}: the notifications the user sees (shown in the background, replaced by tag).
     *
     * @param project the project id
     * @param device the device
     * @return {@code device}, {@code notifications} (oldest first, each a delivery with its
     *     {@code tag}) and {@code unshownHighPriority}
     */
    public Map<String, Object> tray(String project, String device) {
        return get(devicePath(project, device) + "/tray");
    }

    /**
     * {@code getOutcomes}: why a message did or did not arrive. Each device keeps its last 16
     * outcomes, which the event log's eviction does not erase.
     *
     * @param project the project id
     * @param device the device: id, name, token or FID
     * @return {@code device} (id, name, state, token), {@code stored}, {@code story} (the newest
     *     outcome in one sentence) and {@code outcomes} (newest first, each with {@code time},
     *     {@code kind}, {@code messageId}, {@code reason}, {@code summary}, and a refusal's
     *     {@code status} and {@code code})
     */
    public Map<String, Object> outcomes(String project, String device) {
        return get(devicePath(project, device) + "/outcomes");
    }

    /**
     * {@code showNotification}: the app shows a notification for a message in its inbox.
     *
     * @param project the project id
     * @param device the device
     * @param messageId a message in the device's inbox
     * @param tag replaces a shown notification with this tag (null: none)
     * @return the tray afterwards, as {@link #tray(String, String)}
     */
    public Map<String, Object> showNotification(String project, String device, String messageId, String tag) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("messageId", messageId);
        if (tag != null) {
            body.put("tag", tag);
        }
        return json("POST", devicePath(project, device) + "/tray", body);
    }

    /**
     * {@code clearTray}: the user clears the app's notifications.
     *
     * @param project the project id
     * @param device the device
     */
    public void clearTray(String project, String device) {
        request("DELETE", devicePath(project, device) + "/tray", null, null, timeout);
    }

    /**
     * {@code sendUpstream}: the device sends an upstream message to its app server over XMPP.
     *
     * @param project the project id
     * @param device the device
     * @param data the message's data
     * @return the API's answer
     */
    public Map<String, Object> sendUpstream(String project, String device, Map<String, String> data) {
        return json("POST", devicePath(project, device) + ":upstream", Map.of("data", data));
    }
}
