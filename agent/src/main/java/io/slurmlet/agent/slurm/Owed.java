package io.slurmlet.agent.slurm;

import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import java.util.Optional;

/**
 * A restart or the controller's reconfigure owed and not known to be done, one line of the owed
 * file: {@code UNIT ACTION INVOCATION WHY}, the invocation {@code -} until the files are written.
 * {@link SlurmDiff#diff} decides what is owed, {@link OwedJournal} keeps it on the machine, and a
 * machine's report carries the same lines to the leader.
 *
 * @param invocation for a restart, the daemon's systemd invocation once the new files were
 *                   written: the restart is done when the unit has another; "" until then
 */
public record Owed(DaemonChange change, String invocation) {

    String key() {
        return change.unit() + " " + change.action();
    }

    String line() {
        return "%s %s %s %s"
                .formatted(change.unit(), change.action(), invocation.isEmpty() ? "-" : invocation, change.why());
    }

    static Optional<Owed> parse(String line) {
        String[] f = line.split(" ", 4);
        try {
            SettingsPreview.Action action = SettingsPreview.Action.valueOf(f[1]);
            if (action != SettingsPreview.Action.RESTART && action != SettingsPreview.Action.RECONFIGURE
                    || !f[2].matches("-|[0-9a-f]{32}")) {
                return Optional.empty();
            }
            return Optional.of(
                    new Owed(new DaemonChange(f[0], action, f.length > 3 ? f[3] : ""), f[2].equals("-") ? "" : f[2]));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
