package dev.fcmemu;

import java.util.Map;

/**
 * A control API call failed, or no emulator answered.
 *
 * <p>For an error answer the emulator's own words are kept: {@link #status()} (HTTP status),
 * {@link #reason()} (Google's canonical name, such as {@code NOT_FOUND} or {@code INVALID_ARGUMENT}),
 * {@link #apiMessage()} (the error JSON's {@code message}) and {@link #field()} (the offending
 * request field, when the emulator named one).
 */
public class FcmEmuException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String reason;
    private final String apiMessage;
    private final String field;
    private final String body;
    private final String method;
    private final String url;

    /**
     * A failure without an answer (connection refused, timeout) or outside a call.
     *
     * @param message what went wrong
     * @param cause the underlying exception, or null
     */
    public FcmEmuException(String message, Throwable cause) {
        this(message, cause, 0, null, message, null, "", "", "");
    }

    /**
     * A failure with every detail.
     *
     * @param message the exception message
     * @param cause the underlying exception, or null
     * @param status the HTTP status, 0 when no answer came
     * @param reason the error JSON's {@code status}, or null
     * @param apiMessage the error JSON's {@code message} (or a description)
     * @param field the error JSON's {@code field}, or null
     * @param body the raw answer body ("" when none)
     * @param method the request method
     * @param url the request URL
     */
    protected FcmEmuException(String message, Throwable cause, int status, String reason, String apiMessage,
                              String field, String body, String method, String url) {
        super(message, cause);
        this.status = status;
        this.reason = reason;
        this.apiMessage = apiMessage;
        this.field = field;
        this.body = body;
        this.method = method;
        this.url = url;
    }

    /**
     * Builds the exception for an error answer, reading the emulator's {@code {"error": {...}}}.
     *
     * @param status the HTTP status
     * @param body the answer's body
     * @param method the request method
     * @param url the request URL
     * @return the exception
     */
    public static FcmEmuException fromResponse(int status, String body, String method, String url) {
        String reason = null;
        String apiMessage = null;
        String field = null;
        try {
            Map<String, Object> error = Json.obj(Json.parseObject(body), "error");
            reason = Json.str(error, "status");
            apiMessage = Json.str(error, "message");
            field = Json.str(error, "field");
        } catch (IllegalArgumentException notJson) {
            // a body that is not the emulator's error JSON: keep its text below
        }
        if (apiMessage == null || apiMessage.isEmpty()) {
            String text = body.strip();
            apiMessage = text.isEmpty() ? "HTTP " + status : (text.length() > 500 ? text.substring(0, 500) : text);
        }
        StringBuilder message = new StringBuilder().append(method).append(' ').append(url).append(": ").append(status);
        if (reason != null) {
            message.append(' ').append(reason);
        }
        message.append(": ").append(apiMessage);
        if (field != null) {
            message.append(" (field '").append(field).append("')");
        }
        return new FcmEmuException(message.toString(), null, status, reason, apiMessage, field, body, method, url);
    }

    /** @return the HTTP status of the answer, or 0 when no answer came */
    public int status() {
        return status;
    }

    /** @return Google's canonical error name ({@code error.status}), such as {@code NOT_FOUND}, or null */
    public String reason() {
        return reason;
    }

    /** @return the error JSON's {@code message}, or a description of what went wrong */
    public String apiMessage() {
        return apiMessage;
    }

    /** @return the request field the emulator named as wrong, or null */
    public String field() {
        return field;
    }

    /** @return the raw body of the answer ("" when there was none) */
    public String body() {
        return body;
    }

    /** @return the method of the request that failed ("" outside a call) */
    public String method() {
        return method;
    }

    /** @return the URL of the request that failed ("" outside a call) */
    public String url() {
        return url;
    }
}
