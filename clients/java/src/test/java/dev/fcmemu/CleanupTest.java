package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** No emulator outlives the JVM that started it, however that JVM ends. */
class CleanupTest {
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static String classpath() {
        String cp = System.getenv("FCM_EMU_TEST_CLASSPATH");
        return cp != null ? cp : System.getProperty("java.class.path");
    }

    /** Waits (bounded) for a process that is not our child to be gone. */
    private static void assertGone(long pid) throws Exception {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isPresent()) {
            handle.get().onExit().get(20, TimeUnit.SECONDS);
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " survived");
    }

    private static long[] startChild(Process child) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("ready ")) {
                String[] parts = line.split(" ");
                return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
            }
        }
        throw new AssertionError("the child JVM exited before its emulator was ready");
    }

    private static Process child(String mode) throws IOException {
        return new ProcessBuilder(java(), "-cp", classpath(), ChildMain.class.getName(), mode)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    @ParameterizedTest(name = "a child JVM killed with {0}")
    @ValueSource(strings = {"SIGKILL", "SIGTERM"})
    void theEmulatorDiesWithAKilledJvm(String signal) throws Exception {
        Process child = child("hang");
        long[] pids = startChild(child);
        assertTrue(ProcessHandle.of(pids[0]).map(ProcessHandle::isAlive).orElse(false), "the emulator runs");
        if (signal.equals("SIGKILL")) {
            child.destroyForcibly(); // SIGKILL: no shutdown hook runs; the watchdog's pipe closes
        } else {
            child.destroy(); // SIGTERM: the shutdown hook stops it
        }
        assertTrue(child.waitFor(20, TimeUnit.SECONDS));
        assertGone(pids[0]);
        assertGone(pids[1]);
    }

    @ParameterizedTest(name = "a child JVM that ends by {0}")
    @ValueSource(strings = {"exit", "throw"})
    void theEmulatorDiesWithAJvmThatEnds(String mode) throws Exception {
        Process child = child(mode);
        long[] pids = startChild(child);
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertNotEquals(0, child.exitValue());
        assertGone(pids[0]);
        assertGone(pids[1]);
    }

    @Test
    void aFailingJUnitTestLeavesNoEmulator(@TempDir Path dir) throws Exception {
        String launcher = System.getenv("FCM_EMU_TEST_LAUNCHER");
        if (launcher == null) {
            launcher = "/usr/share/java/junit-platform-console-standalone.jar";
        }
        Path pidFile = dir.resolve("pid");
        List<String> argv = new ArrayList<>(List.of(java(), "-Dfcmemu.test.pidfile=" + pidFile, "-jar", launcher,
                "--disable-banner", "--disable-ansi-colors", "--details=none", "--class-path", classpath(),
                "--include-tag", "child", "--select-class", ChildFailingTest.class.getName()));
        Process run = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(dir.resolve("out").toFile()).start();
        assertTrue(run.waitFor(120, TimeUnit.SECONDS), "the child run ended");
        String output = Files.readString(dir.resolve("out"));
        assertEquals(1, run.exitValue(), output);
        assertTrue(output.contains("this test fails on purpose"), output);
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        assertGone(pid);
    }

    @Test
    void stopStopsAndCleansUp() throws Exception {
        FcmEmulator emulator = FcmEmulator.start();
        long pid = emulator.pid();
        Path ca = emulator.caCertificate();
        assertTrue(emulator.running());
        assertEquals(Integer.valueOf(0), emulator.stop(), "a clean stop on SIGTERM");
        assertFalse(emulator.running());
        assertGone(pid);
        assertFalse(Files.exists(ca), "the emulator removed its temporary CA directory");
        assertEquals(Integer.valueOf(0), emulator.stop(), "stop is idempotent");
    }

    @Test
    void aBadSettingFailsWithTheLog() {
        EmulatorNotReadyException e = org.junit.jupiter.api.Assertions.assertThrows(EmulatorNotReadyException.class,
                () -> FcmEmulator.builder().setting("noSuchSetting", "1").start());
        assertTrue(e.getMessage().contains("exited"), e.getMessage());
        assertFalse(e.logTail().isEmpty(), "the log's last lines are in the message");
    }
}
