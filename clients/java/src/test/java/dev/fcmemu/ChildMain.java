package dev.fcmemu;

/**
 * A child JVM for the cleanup tests: starts an emulator, prints {@code ready <emulator pid>
 * <watchdog pid>}, then ends as {@code args[0]} says: {@code hang} (waits to be killed),
 * {@code exit} (System.exit without stopping it), {@code throw} (an uncaught exception).
 */
public final class ChildMain {
    private ChildMain() {}

    public static void main(String[] args) throws Exception {
        FcmEmulator emulator = FcmEmulator.start();
        System.out.println("ready " + emulator.pid() + " " + emulator.process().pid());
        System.out.flush();
        switch (args[0]) {
            case "hang":
                Thread.sleep(Long.MAX_VALUE); // killed by the test
                break;
            case "exit":
                System.exit(3);
                break;
            default:
                throw new IllegalStateException("the test under test fails");
        }
    }
}
