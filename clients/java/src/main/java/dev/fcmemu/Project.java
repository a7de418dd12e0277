package dev.fcmemu;

import java.util.List;

/**
 * One project of a {@link Client}: the project-scoped calls with the project filled in.
 * Obtained from {@link Client#project(String)}, {@link FcmEmulator#project(String)}, or injected
 * by the JUnit extension (a fresh project for each test).
 */
public final class Project {
    private final Client client;
    private final String id;

    Project(Client client, String id) {
        this.client = client;
        this.id = id;
    }

    /** @return the project id */
    public String id() {
        return id;
    }

    /** @return the client */
    public Client client() {
        return client;
    }

    /** @return the project's id, number (sender id) and server keys (one call) */
    public ProjectInfo info() {
        return client.getProject(id);
    }

    /** @return the project number, which is the sender id (one call) */
    public String number() {
        return info().number();
    }

    /** Deletes the project and everything in it. */
    public void delete() {
        client.deleteProject(id);
    }

    /** Removes the project's devices, topics and groups. */
    public void reset() {
        client.resetProject(id);
    }

    /** @return a service-account key file (JSON text) whose {@code token_uri} points at the emulator */
    public String serviceAccountJson() {
        return client.serviceAccountJson(id);
    }

    /** @return an OAuth bearer for the project's v1 API */
    public AccessToken createAccessToken() {
        return client.createAccessToken(id);
    }

    /** Makes every bearer issued until now get 401 on its next v1 call. */
    public void revokeAccessTokens() {
        client.revokeAccessTokens(id);
    }

    /**
     * Turns the project's Firebase Cloud Messaging API on or off (off: v1 calls answer 403).
     *
     * @param apiEnabled whether the v1 API answers
     * @return the project as changed
     */
    public ProjectInfo update(boolean apiEnabled) {
        return client.updateProject(id, apiEnabled);
    }

    /** @return topics with subscriber counts */
    public List<Topic> topics() {
        return client.topics(id);
    }

    /** @return legacy device groups */
    public List<Group> groups() {
        return client.groups(id);
    }

    /** @return bound XMPP connections */
    public List<XmppConnection> xmppConnections() {
        return client.xmppConnections(id);
    }

    /**
     * @param query filters and an optional wait
     * @return the project's events
     */
    public EventList events(EventQuery query) {
        return client.projectEvents(id, query);
    }

    /** @return every kept event of the project */
    public EventList events() {
        return events(EventQuery.all());
    }

    /**
     * @param query filters
     * @param lastEventId resume after this sequence, or null to start now
     * @return the project's events, live
     */
    public EventStream streamEvents(EventQuery query, Long lastEventId) {
        return client.streamEvents("/projects/" + Client.segment(id), query, lastEventId);
    }

    /** @return every device of the project, oldest first */
    public List<Device> devices() {
        return client.allDevices(id);
    }

    /**
     * @param spec what the device is
     * @return the new device
     */
    public Device createDevice(NewDevice spec) {
        return client.createDevice(id, spec);
    }

    /**
     * @param platform the device's platform
     * @return a new foreground device with a generated token
     */
    public Device createDevice(Platform platform) {
        return createDevice(NewDevice.of(platform));
    }

    /**
     * @param platform the device's platform
     * @param name a name unique in the project
     * @return a new foreground device with a generated token
     */
    public Device createDevice(Platform platform, String name) {
        return createDevice(NewDevice.of(platform).name(name));
    }

    /**
     * @param count how many (at most 10000 a call)
     * @param spec what each device is
     * @return the new devices
     */
    public List<Device> createDevices(int count, NewDevice spec) {
        return client.createDevices(id, count, spec);
    }

    /**
     * @param device its id, name or token
     * @return the device
     */
    public Device device(String device) {
        return client.getDevice(id, device);
    }

    @Override
    public String toString() {
        return "Project(" + id + ")";
    }
}
