package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.slurm.SlurmDiff.FileNow;
import io.slurmlet.agent.slurm.SlurmDiff.Seen;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.model.observed.SlurmSeen;
import io.slurmlet.model.plan.ManagedFile;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a machine tells the leader of Slurm's files and daemons, both ways: the slurm step's {@link
 * Seen} as the machine reports it ({@link SlurmSeen}: digests, never a secret's text), and that
 * report read back into a {@link Seen} for a settings preview, which runs {@link SlurmDiff#diff}
 * on it; where a machine has reported nothing yet, the {@link Seen} a preview assumes of it.
 */
public final class SlurmReport {

    private SlurmReport() {}

    /**
     * A machine that has made {@code wanted} true: what a preview assumes of one that holds its
     * current plan; each of its daemons that {@code next} retires is taken to need no job (the leader
     * refuses a controller move while its slurmctld holds jobs; the agent looks again before it stops one).
     */
    public static Seen assumed(Wanted wanted, Wanted next) {
        Map<String, FileNow> files = new LinkedHashMap<>();
        wanted.files()
                .forEach(f -> files.put(f.path(), new FileNow(f.content(), f.permissions(), f.owner(), f.group())));
        Set<String> daemons = new HashSet<>(wanted.daemons());
        return new Seen(
                files,
                daemons,
                daemons,
                Map.of(),
                false,
                Map.of(),
                Retiring.free(next, daemons, daemons),
                Set.of(),
                RestartDropIn.ours(wanted));
    }

    /**
     * What a machine reports of {@code seen}: each file by its digest (a secret's by none), its
     * text where it is short and no secret, the daemons, and what is owed them.
     *
     * @param wanted what the pass that saw it compared it with (which files hold a secret)
     */
    public static SlurmSeen report(Seen seen, Wanted wanted) {
        Set<String> secret = new HashSet<>();
        wanted.files().stream().filter(ManagedFile::secret).forEach(f -> secret.add(f.path()));
        List<SlurmSeen.File> files = new ArrayList<>();
        for (var e : new TreeMap<>(seen.files()).entrySet()) {
            FileNow f = e.getValue();
            boolean hidden = secret.contains(e.getKey());
            boolean shortLine = f.content().length() <= SlurmSeen.TEXT_MAX
                    && f.content().chars().allMatch(c -> c >= 0x20 && c < 0x7f);
            files.add(new SlurmSeen.File(
                    e.getKey(),
                    hidden ? "" : ManagedFiles.sha256(f.content()),
                    hidden || !shortLine ? "" : f.content(),
                    f.mode(),
                    f.owner(),
                    f.group()));
        }
        for (var e : new TreeMap<>(seen.dropIns()).entrySet()) {
            FileNow f = e.getValue();
            files.add(new SlurmSeen.File(
                    RestartDropIn.path(e.getKey()),
                    ManagedFiles.sha256(f.content()),
                    "",
                    f.mode(),
                    f.owner(),
                    f.group()));
        }
        return new SlurmSeen(
                files,
                new TreeSet<>(seen.running()).stream().toList(),
                new TreeSet<>(seen.enabled()).stream().toList(),
                seen.owed().values().stream().map(Owed::line).toList(),
                seen.owedStale(),
                new SlurmSeen.JwksSeen(keysHeld(seen, wanted), seen.keysLoaded()));
    }

    /** The plan's slurm.jwks generation where the machine's file holds the plan's keys, owner and mode; else none. */
    private static Long keysHeld(Seen seen, Wanted wanted) {
        return wanted.files().stream()
                .filter(f -> f.path().equals(SlurmDiff.JWKS))
                .findFirst()
                .filter(f -> seen.files().containsKey(f.path())
                        && seen.files().get(f.path()).holds(f))
                .map(f -> wanted.keysGeneration() > 0 ? wanted.keysGeneration() : null)
                .orElse(null);
    }

    /**
     * A machine's report, as the slurm step's {@link Seen}: each file's content is its text, or the
     * content of the plan before or after the change that has its digest; a file that holds
     * neither (changed by hand, a write that failed, a machine given its role back) is taken to
     * hold the plan's before (or the new one, where the plan before had none: nothing is claimed of
     * it) and named in {@link Reported#unknown}. A secret is taken to hold the plan's.
     */
    public static Reported fromReport(SlurmSeen report, Wanted before, Wanted after) {
        Map<String, List<String>> known = new LinkedHashMap<>();
        Map<String, String> was = before.contents();
        for (Wanted w : List.of(before, after)) {
            w.files()
                    .forEach(f -> known.computeIfAbsent(f.path(), p -> new ArrayList<>())
                            .add(f.content()));
        }
        Map<String, FileNow> files = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        Map<String, FileNow> dropIns = new LinkedHashMap<>();
        for (SlurmSeen.File f : report.files()) {
            Optional<String> daemon = SlurmDiff.DAEMONS.stream()
                    .filter(u -> RestartDropIn.path(u).equals(f.path()))
                    .findFirst();
            if (daemon.isPresent()) {
                // Not one of the plan's files: ours, or another text (written again); an older agent reports none.
                dropIns.put(
                        daemon.get(),
                        new FileNow(
                                ManagedFiles.sha256(RestartDropIn.TEXT).equals(f.digest()) ? RestartDropIn.TEXT : "",
                                f.mode(),
                                f.owner(),
                                f.group()));
                continue;
            }
            List<String> candidates = known.getOrDefault(f.path(), List.of());
            Optional<String> content =
                    !f.text().isEmpty() && ManagedFiles.sha256(f.text()).equals(f.digest())
                            ? Optional.of(f.text())
                            : candidates.stream()
                                    .filter(c -> f.digest().isEmpty()
                                            || ManagedFiles.sha256(c).equals(f.digest()))
                                    .findFirst();
            if (content.isEmpty()) {
                unknown.add(f.path());
            }
            // Unknown: taken to hold its plan of before; where that had none (a machine given a role back), the new
            // one, so that nothing is claimed of what its daemons do for a file nobody knows.
            files.put(
                    f.path(),
                    new FileNow(
                            content.orElse(
                                    was.getOrDefault(f.path(), after.contents().getOrDefault(f.path(), ""))),
                            f.mode(),
                            f.owner(),
                            f.group()));
        }
        Map<String, Owed> owed = new LinkedHashMap<>();
        report.owed().stream().map(Owed::parse).flatMap(Optional::stream).forEach(o -> owed.put(o.key(), o));
        // A daemon the new plan retires that the machine reports running or enabled: taken to be slurmlet's and free to
        // go (the leader refuses a controller move while its slurmctld holds jobs); the agent looks again before it
        // stops it.
        return new Reported(
                new Seen(
                        files,
                        Set.copyOf(report.running()),
                        Set.copyOf(report.enabled()),
                        owed,
                        report.owedStale(),
                        Map.of(),
                        Retiring.free(after, Set.copyOf(report.running()), Set.copyOf(report.enabled())),
                        Set.of(),
                        dropIns),
                List.copyOf(unknown));
    }

    /**
     * A report read back.
     *
     * @param unknown the files whose content the report did not let the leader know
     */
    public record Reported(Seen seen, List<String> unknown) {}
}
