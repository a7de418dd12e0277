package dev.fcmemu;

/**
 * A topic and how many devices are subscribed to it.
 *
 * @param name the topic's name
 * @param subscribers how many devices are subscribed
 */
public record Topic(String name, long subscribers) {}
