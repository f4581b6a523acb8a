package io.slurmlet.agent.leader.plan;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsPreview;
import io.slurmlet.model.api.SettingsPreview.Change;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.api.SettingsPreview.FileChange;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.StoragePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.model.settings.SlurmSettings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a change of the settings would do on each machine, before anything is stored: the plans
 * of the current settings against those of the new ones, both made by the planner without the
 * munge key, and the daemons' actions decided by the steps' own functions
 * ({@link SlurmStep#effects}, {@link MungeStep#effect}), so a preview and an agent's pass cannot
 * disagree. Each machine is taken to hold what its current plan says and to run what it names.
 * Pure.
 */
public final class Preview {

    /** Lines of context around each change, as {@code diff -u} and {@code git diff} print. */
    static final int CONTEXT = 3;

    private Preview() {
    }

    /**
     * @param current   the settings stored now, with their revision
     * @param next      the settings as the change would make them, already free of problems
     * @param inventory every machine with an agent, by name, with its facts
     */
    public static SettingsPreview of(SettingsDocument current, SlurmSettings next, Map<String, NodeFacts> inventory) {
        Planner.Plans was = Planner.review(current.settings(), inventory);
        Planner.Plans will = Planner.review(next, inventory);
        Map<List<String>, String> diffs = new HashMap<>();
        List<NodeChange> nodes = new ArrayList<>();
        for (NodePlan after : will.nodes().values()) {
            NodePlan before = was.nodes().get(after.node());
            NodeChange change = node(before, after, diffs);
            if (!change.rolesBefore().equals(change.rolesAfter()) || !change.files().isEmpty()
                    || !change.daemons().isEmpty() || !change.actions().isEmpty()) {
                nodes.add(change);
            }
        }
        return new SettingsPreview(current.revision(), !next.equals(current.settings()), next, nodes,
                will.problems(), will.notes());
    }

    /** One machine: its plan now against the one it would get. Diffs equal on many machines are made once. */
    private static NodeChange node(NodePlan before, NodePlan after, Map<List<String>, String> diffs) {
        List<FileChange> files = new ArrayList<>();
        List<DaemonChange> daemons = new ArrayList<>();

        // The munge step: a machine gets the cluster's key with its first role; the key never changes.
        boolean newKey = !after.roles().isEmpty() && before.roles().isEmpty();
        if (newKey) {
            files.add(new FileChange(MungeStep.KEY_FILE.toString(), Change.CREATED, null));
        }
        if (!after.roles().isEmpty()) {
            MungeStep.effect(before.services().contains(MungeStep.UNIT), newKey).ifPresent(daemons::add);
        }

        // The slurm step: the files it would write, then what its daemons would do.
        Map<String, String> written = new TreeMap<>();
        for (var file : after.files().entrySet()) {
            String old = before.files().get(file.getKey());
            if (!file.getValue().equals(old)) {
                written.put(file.getKey(), old == null ? "" : old);
                files.add(new FileChange(file.getKey(), old == null ? Change.CREATED : Change.CHANGED,
                        diffs.computeIfAbsent(List.of(file.getKey(), old == null ? "\0" : old, file.getValue()),
                                k -> diff(file.getKey(), old, file.getValue()))));
            }
        }
        Set<String> running = new HashSet<>(before.services());
        daemons.addAll(SlurmStep.effects(written, after.files(), after.services(), running));
        return new NodeChange(after.node(), roles(before), roles(after), files, daemons, actions(before, after));
    }

    /** A plan's roles as status names them: the daemon each runs. */
    static List<String> roles(NodePlan plan) {
        List<String> roles = new ArrayList<>();
        if (plan.runs(Role.CONTROLLER)) {
            roles.add("slurmctld");
        }
        if (plan.runs(Role.COMPUTE)) {
            roles.add("slurmd");
        }
        return roles;
    }

    /**
     * {@code before} → {@code after} as a unified diff with {@value #CONTEXT} lines of context, the
     * paths as git writes them ({@code a/etc/…}, {@code b/etc/…}; {@code /dev/null} for a file
     * that is not there yet); every line ends with a newline. Empty when they are equal.
     *
     * @param path   the file's absolute path
     * @param before its content now; null when it does not exist
     * @param after  its content as it would be
     */
    public static String diff(String path, String before, String after) {
        List<String> a = before == null ? List.of() : lines(before);
        List<String> b = lines(after);
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(before == null ? "/dev/null" : "a" + path,
                "b" + path, a, DiffUtils.diff(a, b), CONTEXT);
        StringBuilder text = new StringBuilder();
        unified.forEach(line -> text.append(line).append('\n'));
        return text.toString();
    }

    /** A text's lines; a last line without its newline is marked as diff marks it. */
    /**
     * What the storage, PAM and users steps would do on a machine whose plan goes from {@code before}
     * to {@code after}, from the plans' own sections (the steps act on nothing else).
     */
    static List<String> actions(NodePlan before, NodePlan after) {
        List<String> actions = new ArrayList<>();
        StoragePlan was = before.storage();
        StoragePlan will = after.storage();
        if (!was.equals(will)) {
            if (was instanceof StoragePlan.Mount m && !(will instanceof StoragePlan.Mount n && n.path().equals(m.path()))) {
                actions.add("unmount %s from %s and remove its mount unit and slurmd's wait for it%s".formatted(m.source(), m.path(),
                        before.services().contains("slurmd") ? "; systemd stops slurmd with the mount (its RequiresMountsFor=)" : ""));
            }
            if (was instanceof StoragePlan.Export e && !(will instanceof StoragePlan.Export f && f.path().equals(e.path()))) {
                actions.add("stop exporting " + e.path());
            }
            if (will instanceof StoragePlan.Mount m) {
                actions.add(was instanceof StoragePlan.Mount old && old.path().equals(m.path())
                        ? "mount %s at %s again, instead of %s".formatted(m.source(), m.path(), old.source())
                        : "mount %s at %s (slurmd waits for it)".formatted(m.source(), m.path()));
            } else if (will instanceof StoragePlan.Export e) {
                actions.add(e.clients().isEmpty()
                        ? "export %s once slurm.conf names the cluster's machines".formatted(e.path())
                        : "export %s to %s".formatted(e.path(), String.join(", ", e.clients())));
            } else if (will instanceof StoragePlan.Check c) {
                actions.add("check that the site has mounted something at " + c.path());
            }
        }
        if (!before.pamAdopt() && after.pamAdopt()) {
            actions.add("put pam_slurm_adopt into sshd's PAM stack once slurmd runs the new slurm.conf: users get in by ssh "
                    + "only while a job of theirs runs here");
        } else if (before.pamAdopt() && !after.pamAdopt()) {
            actions.add("put sshd's PAM stack back as it was before slurmlet");
        }
        if (before.users() == null && after.users() != null) {
            actions.add("keep the cluster's accounts as Linux users here, their homes in " + after.homeRoot());
        } else if (before.users() != null && after.users() == null) {
            actions.add("stop keeping the accounts' users: they and their files stay as they are");
        }
        return actions;
    }

    private static List<String> lines(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int last = lines.size() - 1;
        if (lines.get(last).isEmpty()) {
            lines.remove(last);
        } else {
            lines.set(last, lines.get(last) + "\n\\ No newline at end of file");
        }
        return lines;
    }
}
