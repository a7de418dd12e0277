package dev.fcmemu;

/**
 * A bound XMPP (CCS) connection of a project.
 *
 * @param id the connection's id
 * @param sender the sender id it logged in as
 * @param state {@code active} or {@code draining}
 * @param inFlight messages sent and not yet acknowledged
 */
public record XmppConnection(String id, String sender, String state, long inFlight) {}
