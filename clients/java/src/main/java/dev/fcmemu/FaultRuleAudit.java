package dev.fcmemu;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the fault rules that a test added, or that name its project, and that never fired: the
 * failure they were meant to cause was not tested. The JUnit extension runs one for each test and
 * reports what it finds when the test's project is deleted; the test does not fail for it.
 *
 * <pre>{@code
 * FaultRuleAudit audit = FaultRuleAudit.start(client, project.id());
 * // … the test adds rules and runs …
 * List<String> warnings = audit.report("scoreAlertsRetry");   // also logged as warnings
 * }</pre>
 *
 * <p>Rules are the emulator's, not a project's: deleting the project leaves them in force.
 */
public final class FaultRuleAudit {
    private static final System.Logger LOG = System.getLogger("dev.fcmemu");

    private final Client client;
    private final String projectId;
    private final Set<String> before;

    private FaultRuleAudit(Client client, String projectId, Set<String> before) {
        this.client = client;
        this.projectId = projectId;
        this.before = before;
    }

    /**
     * Notes the rules in force now, to tell the ones the test adds later.
     *
     * @param client the control API client
     * @param projectId the test's project
     * @return the audit
     */
    public static FaultRuleAudit start(Client client, String projectId) {
        return new FaultRuleAudit(client, projectId, ids(client));
    }

    /** @return the ids of the rules in force, or null when they cannot be read */
    private static Set<String> ids(Client client) {
        try {
            Set<String> ids = new HashSet<>();
            for (Map<String, Object> rule : rules(client)) {
                ids.add(String.valueOf(rule.get("id")));
            }
            return ids;
        } catch (FcmEmuException unavailable) {
            return null;
        }
    }

    // FaultRule keeps what was posted; "fired" is in the listFaults answer only.
    private static List<Map<String, Object>> rules(Client client) {
        return Json.objects(client.request("GET", "/faults", null, null, client.timeout()).json(), "faults");
    }

    /**
     * Logs (a {@link System.Logger} warning of {@code dev.fcmemu}) and returns a warning for each
     * rule that never fired and belongs to the test: it names the project, or it was added since
     * {@link #start} and names no other project.
     *
     * @param test how the warnings name the test
     * @return the warnings, empty when every such rule fired or the rules cannot be read
     */
    public List<String> report(String test) {
        List<String> warnings = new ArrayList<>();
        List<Map<String, Object>> rules;
        try {
            rules = rules(client);
        } catch (FcmEmuException unavailable) {
            return warnings;
        }
        for (Map<String, Object> rule : rules) {
            if (Json.num(rule, "fired", 0) != 0) {
                continue;
            }
            String named = Json.str(Json.obj(rule, "match"), "project");
            String id = String.valueOf(rule.get("id"));
            if (projectId.equals(named) || (named == null && before != null && !before.contains(id))) {
                String text = "fcm-emu: fault rule '" + id + "' never fired during " + test + " (match "
                        + Json.write(rule.getOrDefault("match", Map.of())) + ", action " + Json.write(rule.getOrDefault("action", Map.of()))
                        + "): no call matched it, so the failure it was meant to cause was not tested; check its api, route, "
                        + "project, target and device";
                LOG.log(System.Logger.Level.WARNING, text);
                warnings.add(text);
            }
        }
        return warnings;
    }
}
