package dev.fcmemu;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * A live event stream ({@code events:stream}, Server-Sent Events). Iterate it for frames, or use
 * {@link #nextEvent()} for log entries only; close it when done.
 */
public final class EventStream implements AutoCloseable, Iterable<EventStream.Message> {
    /**
     * One frame of the stream.
     *
     * @param event {@code message} for log entries, or {@code ready}, {@code lagged}, {@code shutdown}
     * @param data the frame's data (parsed JSON when it is JSON, else the text)
     * @param id the frame's id (the event's sequence), or null
     */
    public record Message(String event, Object data, String id) {
        /** @return the log entry a {@code message} frame carries, or null */
        @SuppressWarnings("unchecked")
        public Event asEvent() {
            return "message".equals(event) && data instanceof Map ? Event.fromJson((Map<String, Object>) data) : null;
        }
    }

    private final InputStream body;
    private final BufferedReader reader;

    EventStream(InputStream body) {
        this.body = body;
        this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /**
     * Reads the next frame, blocking until one comes.
     *
     * @return the frame, or null at the end of the stream
     * @throws UncheckedIOException when the connection fails
     */
    public Message next() {
        String event = "message";
        String id = null;
        List<String> data = new ArrayList<>();
        try {
            while (true) {
                String line = reader.readLine();
                if (line == null) {
                    return null;
                }
                if (line.isEmpty()) {
                    if (!data.isEmpty()) {
                        String text = String.join("\n", data);
                        Object payload;
                        try {
                            payload = Json.parse(text);
                        } catch (IllegalArgumentException notJson) {
                            payload = text;
                        }
                        return new Message(event, payload, id);
                    }
                    event = "message";
                    continue;
                }
                if (line.startsWith(":")) {
                    continue;
                }
                int colon = line.indexOf(':');
                String name = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1);
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                switch (name) {
                    case "event": event = value; break;
                    case "data": data.add(value); break;
                    case "id": id = value; break;
                    default: break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads frames until the next log entry.
     *
     * @return the next event, or null when the stream ends (or the server shuts down)
     */
    public Event nextEvent() {
        while (true) {
            Message message = next();
            if (message == null || "shutdown".equals(message.event())) {
                return null;
            }
            Event event = message.asEvent();
            if (event != null) {
                return event;
            }
        }
    }

    @Override
    public Iterator<Message> iterator() {
        return new Iterator<>() {
            private Message pending;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (pending == null && !done) {
                    pending = EventStream.this.next();
                    done = pending == null;
                }
                return pending != null;
            }

            @Override
            public Message next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Message out = pending;
                pending = null;
                return out;
            }
        };
    }

    /** Closes the connection. */
    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException ignored) {
            // closing a dropped connection
        }
    }
}
