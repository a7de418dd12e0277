package dev.fcmemu;

import java.util.List;

/**
 * A legacy device group.
 *
 * @param name its {@code notification_key_name}
 * @param notificationKey its {@code notification_key}
 * @param tokens the registration tokens in it
 */
public record Group(String name, String notificationKey, List<String> tokens) {}
