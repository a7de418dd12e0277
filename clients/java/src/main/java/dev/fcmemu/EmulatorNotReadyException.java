package dev.fcmemu;

import java.nio.file.Path;

/**
 * The emulator process exited, or did not write its ready file in time. The message ends with the
 * last lines of its log, which usually say why.
 */
public class EmulatorNotReadyException extends FcmEmuException {
    private static final long serialVersionUID = 1L;

    private final transient Path logPath;
    private final String logTail;

    /**
     * @param message what happened
     * @param logPath the emulator's log file, or null
     * @param logTail the last lines of the log ("" when none)
     */
    public EmulatorNotReadyException(String message, Path logPath, String logTail) {
        super(message + (logPath != null ? "\nlog: " + logPath : "")
                + (logTail.isEmpty() ? "" : "\n--- last lines of the log ---\n" + logTail), null);
        this.logPath = logPath;
        this.logTail = logTail;
    }

    /** @return the emulator's log file, or null */
    public Path logPath() {
        return logPath;
    }

    /** @return the last lines of the emulator's log */
    public String logTail() {
        return logTail;
    }
}
