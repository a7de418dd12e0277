package dev.fcmemu;

/**
 * An OAuth bearer for a project's HTTP v1 API.
 *
 * @param accessToken the token
 * @param tokenType {@code Bearer}
 * @param expiresIn seconds it stays valid
 */
public record AccessToken(String accessToken, String tokenType, long expiresIn) {}
