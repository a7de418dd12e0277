package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The JDK's own trust store is read, never written (run-tests also compares it around the whole run). */
@ExtendWith(FcmEmulatorExtension.class)
class TrustStoreTest {
    @Test
    void theJdksCacertsIsUnchanged(FcmEmulator emulator, Project project) throws Exception {
        Path cacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
        assertTrue(Files.exists(cacerts), cacerts + " exists");
        Path real = cacerts.toRealPath(); // on Debian a symlink into /etc/ssl/certs/java
        byte[] before = Files.readAllBytes(real);
        FileTime modified = Files.getLastModifiedTime(real);
        Path store;
        try (FirebaseEnvironment env = emulator.firebaseEnvironment(project.id()).proxyProperties(true).install()) {
            store = env.trustStore();
            assertFalse(store.toRealPath().equals(real), "the trust store is a file of its own");
            assertFalse(store.startsWith(real.getParent()));
        }
        assertArrayEquals(before, Files.readAllBytes(real), "cacerts byte for byte");
        assertEquals(modified, Files.getLastModifiedTime(real));
        assertFalse(Files.exists(store), "the copy is removed");
    }
}
