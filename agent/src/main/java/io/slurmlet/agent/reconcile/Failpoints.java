package io.slurmlet.agent.reconcile;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * Named points between two actions where a crash test holds the agent, so that it can be killed
 * exactly there: the system tests set {@code SLURMLET_FAILPOINTS=NAME[,NAME]} in the agent's
 * environment (a systemd drop-in) and kill it once it logs that it holds. Without that variable,
 * as on every site, a failpoint does nothing.
 */
public final class Failpoints {

    private static final Logger LOG = Logger.getLogger(Failpoints.class);
    private static final Set<String> HELD = parse(System.getenv("SLURMLET_FAILPOINTS"));

    /** After a step wrote its files and before it restarts the daemons that read them. */
    public static final String FILES_WRITTEN = "slurm.files-written";

    private Failpoints() {}

    static Set<String> parse(String names) {
        return names == null
                ? Set.of()
                : Arrays.stream(names.split(","))
                        .map(String::strip)
                        .filter(n -> !n.isEmpty())
                        .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Holds here, when {@code name} is set, until the agent is killed; stopped (interrupted), it
     * throws, so that nothing after the failpoint is done on the way out.
     */
    public static void hold(String name) {
        if (!HELD.contains(name)) {
            return;
        }
        LOG.warnf("failpoint %s: holding here until the agent is stopped (SLURMLET_FAILPOINTS is set)", name);
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("failpoint " + name + ": the agent stopped while held here");
        }
    }
}
