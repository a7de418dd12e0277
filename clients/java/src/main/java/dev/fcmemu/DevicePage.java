package dev.fcmemu;

import java.util.List;

/**
 * One page of a project's devices.
 *
 * @param total how many devices the project has in all
 * @param devices this page's devices, oldest first
 */
public record DevicePage(long total, List<Device> devices) {}
