package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.Reconciler.Held;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.SystemException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a restart of slurmctld or slurmd waits for: the jobs that are being launched ({@link
 * #LAUNCH_SECONDS} says why), read from {@code squeue}. The slurm step passes here right before each
 * restart; one that waited its most stays owed for the next pass.
 */
final class LaunchGate {

    /**
     * How long after slurmctld started a job it may still be launching it: Slurm's default
     * BatchStartTimeout. A restart in that window can lose the launch (the batch launch slurmctld
     * had queued, or slurmd's answer), and slurmctld then ends the job as "missing from batch node".
     */
    static final long LAUNCH_SECONDS = 10;
    /** The most a restart waits for launches; after that it is left owed for the next pass. */
    static final int LAUNCH_LOOKS = 20;
    /** The longest one look at the launching jobs may take (slurmctld answers in milliseconds; one that does not is not launching). */
    static final Duration LAUNCH_LOOK_DEADLINE = Duration.ofSeconds(5);

    /** How the gate waits a second between two looks at jobs that are launching: a real sleep, or none in tests. */
    interface Pause {
        void sleep(long millis) throws InterruptedException;
    }

    private final Commands commands;
    private final Pause pause;

    LaunchGate(Commands commands, Pause pause) {
        this.commands = commands;
        this.pause = pause;
    }

    /**
     * Waits, a second at a time and {@link #LAUNCH_LOOKS} looks at most, until the jobs that were
     * being launched at the first look are launched: slurmctld's restart waits for the cluster's,
     * slurmd's for this node's. Only the first look's jobs are waited for, so a busy cluster, where
     * some job always starts, still gets its restart within seconds. A slurmctld that cannot be
     * asked launches nothing.
     *
     * @throws Held jobs were still launching at the last look: the restart stays owed
     */
    void await(String unit, String node) throws Held {
        List<String> argv = new ArrayList<>(List.of("squeue", "-a", "-h", "-t", "CF,R", "-o", "%i %T %M"));
        if (!unit.equals("slurmctld")) {
            if (node.isEmpty()) {
                return;
            }
            argv.addAll(List.of("-w", node));
        }
        Set<String> first = null;
        List<String> launching = List.of();
        for (int look = 0; look < LAUNCH_LOOKS; look++) {
            Map<String, String> now;
            try {
                now = launching(commands.runChecked(argv, LAUNCH_LOOK_DEADLINE).stdout());
            } catch (SystemException e) {
                return;
            }
            if (first == null) {
                first = Set.copyOf(now.keySet());
            }
            now.keySet().retainAll(first);
            launching = List.copyOf(now.values());
            if (launching.isEmpty()) {
                return;
            }
            try {
                pause.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new Held(("%s is restarted once no job is launching%s (%s): a restart as a job launches can lose it; "
                        + "it stays owed for the next pass")
                .formatted(unit, unit.equals("slurmctld") ? "" : " on " + node, String.join(", ", launching)));
    }

    /**
     * The jobs of {@code squeue -o "%i %T %M"} that are still launching, by id: configuring, or
     * running for less than {@link #LAUNCH_SECONDS}; each said as {@code job 12 (running 3 s)}.
     * A time squeue cannot print ({@code INVALID}: over a year, or a start in this clock's future)
     * is not a launch.
     */
    static Map<String, String> launching(String squeue) {
        Map<String, String> launching = new LinkedHashMap<>();
        for (String line :
                squeue.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            String[] f = line.split("\\s+");
            if (f.length < 3) {
                continue;
            }
            if (f[1].equals("CONFIGURING")) {
                launching.put(f[0], "job " + f[0] + " (configuring)");
                continue;
            }
            OptionalLong ran = elapsedSeconds(f[2]);
            if (ran.isPresent() && ran.getAsLong() < LAUNCH_SECONDS) {
                launching.put(f[0], "job %s (running %d s)".formatted(f[0], ran.getAsLong()));
            }
        }
        return launching;
    }

    /** squeue's {@code %M}: {@code 0:05}, {@code 1:02:03}, {@code 2-01:02:03}; empty for one it cannot read. */
    static OptionalLong elapsedSeconds(String time) {
        Matcher m = ELAPSED.matcher(time);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        long days = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
        long hours = m.group(2) == null ? 0 : Long.parseLong(m.group(2));
        return OptionalLong.of(
                ((days * 24 + hours) * 60 + Long.parseLong(m.group(3))) * 60 + Long.parseLong(m.group(4)));
    }

    private static final Pattern ELAPSED = Pattern.compile("^(?:(\\d{1,6})-)?(?:(\\d{1,6}):)?(\\d{1,6}):(\\d{1,2})$");
}
