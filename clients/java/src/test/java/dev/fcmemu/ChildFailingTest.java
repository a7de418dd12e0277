package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.fail;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Run only in a child JVM by {@link CleanupTest}: a failing test whose emulator must not survive. */
@Tag("child")
@ExtendWith(FcmEmulatorExtension.class)
class ChildFailingTest {
    @Test
    void failsWithAnEmulatorRunning(FcmEmulator emulator, Project project) throws Exception {
        Files.writeString(Path.of(System.getProperty("fcmemu.test.pidfile")), emulator.pid() + "\n");
        project.createDevice(Platform.ANDROID);
        fail("this test fails on purpose");
    }
}
