package dev.fcmemu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.fcmemu.junit.FcmEmulatorExtension;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Run only in a child JVM by {@link WhyTest}: a passing test with a fault rule that never fires. */
@Tag("child")
@ExtendWith(FcmEmulatorExtension.class)
class ChildUnusedRuleTest {
    @Test
    void passesWithoutTheLegacyApi(Client client, Project project) {
        client.addFault(new FaultRule("never-" + project.id(), Map.of("project", project.id(), "api", "legacy"),
                Map.of("error", "UNAVAILABLE")));
        assertEquals(Platform.WEB, project.createDevice(Platform.WEB).platform());
    }
}
