package dev.fcmemu.junit;

import dev.fcmemu.Client;
import dev.fcmemu.FcmEmuException;
import dev.fcmemu.FaultRuleAudit;
import dev.fcmemu.FcmEmulator;
import dev.fcmemu.FirebaseEnvironment;
import dev.fcmemu.Project;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives tests an fcm-emu emulator, a fresh project for each test, and
 * routes the code under test (Google's Admin SDK in this JVM) to it.
 *
 * <pre>{@code
 * @ExtendWith(FcmEmulatorExtension.class)
 * class PushTest {
 *     @Test
 *     void aGoalReachesThePhone(Project project, FirebaseEnvironment env) {
 *         Device phone = project.createDevice(Platform.ANDROID, "pixel");
 *         myApp.sendScore(env.keyFile(), phone.token(), "3-0");       // the code under test
 *         phone.waitForDelivery(Where.data("score", "3-0"));
 *     }
 * }
 * }</pre>
 *
 * <p>Parameters it resolves, in test methods, {@code @BeforeEach}/{@code @AfterEach} methods and
 * (the first two) {@code @BeforeAll} methods and constructors:
 * <ul>
 *   <li>{@link FcmEmulator}: one emulator for every class with the same
 *       {@link FcmEmulatorOptions#settings()}, started on free ports with its HTTPS proxy on,
 *       stopped when the run ends (or attached to {@code $FCM_EMU_CONTROL_API} when it is set);</li>
 *   <li>{@link Client}: its control API;</li>
 *   <li>{@link Project}: a fresh project for the test (its tokens checked as FCM does), deleted
 *       after it; before that, each fault rule that the test added, or that names the project,
 *       and that never fired is reported ({@link FaultRuleAudit}: a logged warning and a JUnit
 *       report entry "fcm-emu"), without failing the test;</li>
 *   <li>{@link FirebaseEnvironment}: the test project's key file, trust store and proxy,
 *       installed for the JVM from before {@code @BeforeEach} to after {@code @AfterEach}
 *       (unless {@link FcmEmulatorOptions#route()} is false, when it is handed over uninstalled).</li>
 * </ul>
 * The routing is process-wide: do not run tests of this extension in parallel.
 */
public class FcmEmulatorExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(FcmEmulatorExtension.class);
    private static final String TEST_KEY = "test";

    /** Stops the emulator when the run's root context closes. */
    static final class EmulatorResource implements ExtensionContext.Store.CloseableResource {
        final FcmEmulator emulator;

        EmulatorResource(FcmEmulator emulator) {
            this.emulator = emulator;
        }

        @Override
        public void close() {
            emulator.close();
        }
    }

    /** One test's project and environment; closing it undoes both. */
    static final class TestResource implements ExtensionContext.Store.CloseableResource {
        final Project project;
        final FirebaseEnvironment environment;
        final FaultRuleAudit faultRules;

        TestResource(Project project, FirebaseEnvironment environment) {
            this.project = project;
            this.environment = environment;
            this.faultRules = FaultRuleAudit.start(project.client(), project.id());
        }

        @Override
        public void close() {
            try {
                environment.close();
            } finally {
                try {
                    project.delete();
                } catch (FcmEmuException gone) {
                    // deleted by the test, or the emulator is gone
                }
            }
        }
    }

    private static FcmEmulatorOptions options(ExtensionContext context) {
        Optional<Class<?>> type = context.getTestClass();
        while (type.isPresent()) {
            FcmEmulatorOptions found = type.get().getAnnotation(FcmEmulatorOptions.class);
            if (found != null) {
                return found;
            }
            type = Optional.ofNullable(type.get().getEnclosingClass());
        }
        return Defaults.class.getAnnotation(FcmEmulatorOptions.class);
    }

    @FcmEmulatorOptions
    private static final class Defaults {}

    /**
     * The emulator for this context's class: started once per set of settings and kept in the
     * root store, so that it is stopped when the whole run ends.
     *
     * @param context any context of the test class
     * @return the emulator
     */
    public static FcmEmulator emulator(ExtensionContext context) {
        String[] settings = options(context).settings();
        String key = "emulator:" + String.join("\u0000", settings);
        ExtensionContext.Store store = context.getRoot().getStore(NAMESPACE);
        return store.getOrComputeIfAbsent(key, k -> {
            FcmEmulator.Builder builder = FcmEmulator.builder();
            for (String setting : settings) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("@FcmEmulatorOptions settings are key=value, not " + setting);
                }
                builder.setting(setting.substring(0, eq), setting.substring(eq + 1));
            }
            return new EmulatorResource(FcmEmulator.startOrAttach(builder));
        }, EmulatorResource.class).emulator;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        emulator(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        FcmEmulatorOptions options = options(context);
        FcmEmulator emulator = emulator(context);
        Project project = emulator.newProject();
        FirebaseEnvironment environment = emulator.firebaseEnvironment(project.id()).proxyProperties(options.proxyProperties());
        TestResource test = new TestResource(project, environment);
        context.getStore(NAMESPACE).put(TEST_KEY, test);
        if (options.route()) {
            environment.install();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        TestResource test = context.getStore(NAMESPACE).remove(TEST_KEY, TestResource.class);
        if (test != null) {
            String name = context.getTestMethod().map(m -> m.getDeclaringClass().getSimpleName() + "." + m.getName())
                    .orElse(context.getDisplayName());
            try {
                for (String warning : test.faultRules.report(name)) {
                    context.publishReportEntry("fcm-emu", warning);
                }
            } finally {
                test.close();
            }
        }
    }

    private static final Class<?>[] TYPES = {FcmEmulator.class, Client.class, Project.class, FirebaseEnvironment.class};

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return Arrays.asList(TYPES).contains(type);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        if (type == FcmEmulator.class) {
            return emulator(context);
        }
        if (type == Client.class) {
            return emulator(context).client();
        }
        TestResource test = context.getStore(NAMESPACE).get(TEST_KEY, TestResource.class);
        if (test == null) {
            throw new ParameterResolutionException("a " + type.getSimpleName() + " belongs to one test: ask for it in a "
                    + "@Test, @BeforeEach or @AfterEach method (FcmEmulator and Client are there for @BeforeAll)");
        }
        return type == Project.class ? test.project : test.environment;
    }
}
