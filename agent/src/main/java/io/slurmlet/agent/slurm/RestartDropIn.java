package io.slurmlet.agent.slurm;

import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.slurm.SlurmDiff.FileNow;
import io.slurmlet.agent.slurm.SlurmDiff.Seen;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.plan.ManagedFile;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The drop-in by which systemd starts slurmctld or slurmd again when it crashes, also while the
 * agent is down (Debian's and SchedMD's units have no {@code Restart=}): its path, its text, and
 * the part of {@link SlurmDiff#diff} that writes it for each of the plan's daemons where it is not
 * slurmlet's. It is kept apart from the plan's files: a change of it takes a {@code systemctl
 * daemon-reload}, never a restart of the daemon.
 */
public final class RestartDropIn {

    private RestartDropIn() {}

    /**
     * Where {@code unit}'s drop-in is. Named to sort before a site's own ({@code override.conf} of
     * {@code systemctl edit}), which therefore wins.
     */
    public static String path(String unit) {
        return "/etc/systemd/system/" + unit + ".service.d/10-slurmlet-restart.conf";
    }

    /** {@link #path} as the file it is written as: {@link #TEXT}, root's, 0644. */
    static ManagedFile file(String unit) {
        return ManagedFile.config(path(unit), TEXT);
    }

    /**
     * What {@link #path} holds: a crash (a signal, a core dump, an exit code) is undone after
     * 1 s (the agent's daemon watch leaves a unit that waits for its own Restart= to systemd), a
     * stop never. Four starts within 30 s and systemd refuses the next, so a slurmctld on state it
     * cannot read is not kept crash-looping; the window is short, as every start counts, an admin's
     * {@code systemctl restart} too (ten minutes made CI's own restarts fail: FINDINGS.md).
     */
    public static final String TEXT = """
            # Written by slurmlet: systemd starts this daemon again 1 s after it crashes (a signal, a
            # core dump, an exit code), also while slurmlet's agent is down; never one that was
            # stopped. After four starts within 30 s, systemd refuses the next (journalctl -u says
            # why). A drop-in of the site's that sorts after this one (override.conf, of systemctl
            # edit) has the last word.
            [Unit]
            StartLimitIntervalSec=30s
            StartLimitBurst=4

            [Service]
            Restart=on-failure
            RestartSec=1s
            """;

    /** The drop-ins of {@code wanted}'s daemons that are not slurmlet's text, to be written; none where all are. */
    static Optional<RestartDropIns> diff(Wanted wanted, Seen seen) {
        Map<String, Optional<String>> dropIns = new LinkedHashMap<>();
        for (String unit : wanted.daemons()) {
            FileNow now = seen.dropIns().get(unit);
            if (now == null || !now.content().equals(TEXT)) {
                dropIns.put(unit, Optional.ofNullable(now).map(FileNow::content));
            }
        }
        return dropIns.isEmpty() ? Optional.empty() : Optional.of(new RestartDropIns(dropIns));
    }

    /** The restart drop-ins of a machine that applies {@code plan}: slurmlet's, for each daemon it runs. */
    static Map<String, FileNow> ours(Wanted plan) {
        Map<String, FileNow> dropIns = new LinkedHashMap<>();
        if (!plan.files().isEmpty()) {
            for (String unit : plan.daemons()) {
                ManagedFile f = file(unit);
                dropIns.put(unit, new FileNow(f.content(), f.permissions(), f.owner(), f.group()));
            }
        }
        return dropIns;
    }

    /**
     * Each unit's {@link #path} written, then one {@code systemctl daemon-reload}: no daemon is restarted for it.
     *
     * @param before each unit's drop-in as it is (empty: none)
     */
    record RestartDropIns(Map<String, Optional<String>> before) implements SlurmAction {
        List<String> units() {
            return List.copyOf(before.keySet());
        }

        @Override
        public List<SettingsPreview.FileChange> files(FileDiffs diffs) {
            return before.entrySet().stream()
                    .map(e -> new SettingsPreview.FileChange(
                            path(e.getKey()),
                            e.getValue().isEmpty() ? SettingsPreview.Change.CREATED : SettingsPreview.Change.CHANGED,
                            diffs.of(path(e.getKey()), e.getValue().orElse(null), TEXT)))
                    .toList();
        }

        public String will() {
            return "have systemd start %s again should %s crash (%s, then systemctl daemon-reload)"
                    .formatted(
                            String.join(" and ", units()),
                            units().size() == 1 ? "it" : "one",
                            String.join(
                                    ", ",
                                    units().stream().map(RestartDropIn::path).toList()));
        }

        public String did() {
            return "systemd starts %s again should %s crash (Restart=on-failure)"
                    .formatted(String.join(" and ", units()), units().size() == 1 ? "it" : "one");
        }

        @Override
        public String failed(String error) {
            return "cannot have systemd start %s again after a crash: %s"
                    .formatted(String.join(" and ", units()), error);
        }
    }
}
