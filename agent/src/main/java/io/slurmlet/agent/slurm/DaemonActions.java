package io.slurmlet.agent.slurm;

import io.slurmlet.agent.slurm.SlurmDiff.Seen;
import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The daemons part of {@link SlurmDiff#diff}: what slurmctld and slurmd are owed once a pass wrote
 * its files, what the owed file said before and what {@link RestartRules#effects} finds for the
 * files it writes, each daemon's covering the other's; and the actions that do it. A restart and
 * the controller's reconfigure are written down before the files ({@link RecordOwed}), so an agent
 * stopped between the files and the restart still owes it; a start is not, a daemon that does not
 * run is started whatever the files say.
 *
 * @param owed    what is owed once the files are written, by unit and action
 * @param effects what each daemon does, by unit
 */
record DaemonActions(Map<String, Owed> owed, Map<String, DaemonChange> effects) {

    /** @param written each file this pass writes whose content changes, with what it holds now ("" when absent) */
    static DaemonActions of(Wanted wanted, Seen seen, Map<String, String> written) {
        Map<String, Owed> owed = new LinkedHashMap<>(seen.owed());
        Map<String, DaemonChange> effects = new LinkedHashMap<>();
        owed.values().forEach(o -> effects.merge(o.change().unit(), o.change(), RestartRules::covering));
        RestartRules.effects(written, wanted.contents(), wanted.services(), seen.running())
                .forEach(e -> effects.merge(e.unit(), e, RestartRules::covering));
        for (DaemonChange e : effects.values()) {
            if (e.action() == SettingsPreview.Action.RESTART
                    || e.action() == SettingsPreview.Action.RECONFIGURE
                            && e.unit().equals("slurmctld")
                            && wanted.controls()) {
                owed.putIfAbsent(e.unit() + " " + e.action(), new Owed(e, ""));
            }
        }
        String nodeSet = RestartRules.nodeSetChangeNeedingRestart(written, wanted.contents());
        if (wanted.controls()
                && nodeSet != null
                && effects.containsKey("slurmctld")
                && effects.get("slurmctld").action() == SettingsPreview.Action.RESTART) {
            // The slurmds still hold the old node set after slurmctld's restart: the reconfigure a
            // later release does in one, owed from now on as well.
            owed.putIfAbsent(
                    "slurmctld RECONFIGURE",
                    new Owed(
                            new DaemonChange(
                                    "slurmctld",
                                    SettingsPreview.Action.RECONFIGURE,
                                    "every slurmd reads the new node set"),
                            ""));
        }
        return new DaemonActions(owed, effects);
    }

    /** What is owed written down, where the owed file says otherwise (or more, or cannot be read). */
    Optional<RecordOwed> record(Seen seen) {
        return !owed.equals(seen.owed()) || seen.owedStale()
                ? Optional.of(new RecordOwed(List.copyOf(owed.values())))
                : Optional.empty();
    }

    /** Where a restart is owed with no invocation noted yet: noting them, once the files are written. */
    Optional<NoteInvocations> noteInvocations() {
        return owed.values().stream()
                        .anyMatch(o -> o.change().action() == SettingsPreview.Action.RESTART
                                && o.invocation().isEmpty())
                ? Optional.of(new NoteInvocations())
                : Optional.empty();
    }

    /** Each daemon enabled, then started, restarted or shown reconfigured in the plan's order; then the controller's reconfigure. */
    List<SlurmAction> daemons(Wanted wanted, Seen seen) {
        List<SlurmAction> a = new ArrayList<>();
        for (String unit : wanted.daemons()) {
            if (!seen.enabled().contains(unit)) {
                a.add(new Enable(unit));
            }
            DaemonChange effect = effects.get(unit);
            Owed restart = owed.get(unit + " " + SettingsPreview.Action.RESTART);
            if (effect != null && effect.action() == SettingsPreview.Action.START) {
                a.add(new Start(effect));
            } else if (restart != null) {
                a.add(new Restart(restart.change()));
            } else if (effect != null && effect.action() == SettingsPreview.Action.RECONFIGURE) {
                a.add(new Reconfigured(effect));
            }
        }
        Owed reconfigure = owed.get("slurmctld " + SettingsPreview.Action.RECONFIGURE);
        if (wanted.controls() && reconfigure != null) {
            // Shown as slurmctld's own line unless slurmctld's Reconfigured already shows it (after its restart on
            // 22.05 for a changed node set, or owed from a pass that failed, it is a daemon action of its own).
            a.add(new Reconfigure(
                    reconfigure.change(),
                    a.stream()
                            .noneMatch(x -> x instanceof Reconfigured r
                                    && r.change().unit().equals("slurmctld"))));
        }
        return a;
    }

    /** What the daemons are owed, written down before the files: an agent stopped after them still owes it. */
    record RecordOwed(List<Owed> owed) implements SlurmAction {
        public String will() {
            return "write down the restarts owed";
        }

        public String did() {
            return "";
        }

        @Override
        public String failed(String error) {
            return "cannot write down what the daemons are owed: " + error;
        }
    }

    /** Each owed restart notes the invocation that read the old files: the restart is done when the unit has another. */
    record NoteInvocations() implements SlurmAction {
        public String will() {
            return "note the daemons' invocations";
        }

        public String did() {
            return "";
        }
    }

    record Enable(String unit) implements SlurmAction {
        public String will() {
            return "enable " + unit;
        }

        public String did() {
            return "enabled " + unit;
        }

        @Override
        public boolean housekeeping() {
            return true;
        }
    }

    record Start(DaemonChange change) implements SlurmAction {
        public String will() {
            return "start " + change.unit();
        }

        public String did() {
            return "started " + change.unit();
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    record Restart(DaemonChange change) implements SlurmAction {
        public String will() {
            return "restart " + change.unit();
        }

        public String did() {
            return "restarted " + change.unit() + " (a change it reads only at start)";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    /** A daemon that takes the new files from the controller's reconfigure: nothing to do here; a preview shows it. */
    record Reconfigured(DaemonChange change) implements SlurmAction {
        public String will() {
            return change.why();
        }

        public String did() {
            return "";
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return Optional.of(change);
        }
    }

    /**
     * The controller's {@code scontrol reconfigure}, after every restart; a preview shows it as
     * slurmctld's {@link Reconfigured}, or, where there is none ({@code shown}), as a line of its own.
     */
    record Reconfigure(DaemonChange change, boolean shown) implements SlurmAction {
        public String will() {
            return "scontrol reconfigure";
        }

        public String did() {
            return "scontrol reconfigure";
        }

        @Override
        public boolean housekeeping() {
            return !shown;
        }

        @Override
        public Optional<DaemonChange> daemon() {
            return shown ? Optional.of(change) : Optional.empty();
        }
    }
}
