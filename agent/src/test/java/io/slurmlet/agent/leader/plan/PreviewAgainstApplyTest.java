package io.slurmlet.agent.leader.plan;

import io.slurmlet.agent.munge.MungeStep;
import io.slurmlet.agent.pam.PamStep;
import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.FileDiffs;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.slurm.SlurmStep;
import io.slurmlet.agent.storage.StorageStep;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SettingsPreview.NodeChange;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.observed.MungeSeen;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PamSeen;
import io.slurmlet.model.observed.StorageSeen;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.settings.SlurmSettings;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * For every step on the step shape (munge, storage, slurm, PAM): a dry run of a change, made from
 * what each machine reported after its agent applied the current settings, lists exactly what the
 * agent then does when the change is applied: the same files with the same diffs, the same daemons
 * with the same actions and reasons, the same sentences, in the same order. Each machine is a
 * fake one (files, systemd, commands) that the real steps act on.
 */
class PreviewAgainstApplyTest {

    static final MungeKey KEY = MungeKey.random();
    static final List<String> MACHINES = List.of("c0", "n1", "n2", "other");

    static Map<String, NodeFacts> inventory() {
        Map<String, NodeFacts> inv = new TreeMap<>();
        for (String n : MACHINES) {
            inv.put(n, new NodeFacts(n, "", 8, 1, 1, 8, 1, 32_000, List.of(), "debian 12", "22.05.8"));
        }
        return inv;
    }

    static final SlurmSettings NONE = SlurmSettings.DEFAULTS;

    static SlurmSettings cluster(Map<String, Object> with) {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SettingsJson.STRICT.valueToTree(
                new SlurmSettings(true, "lab", "c0", List.of("n1", "n2"), false, List.of("n1"), "gpu", null, null, false, null));
        with.forEach((k, v) -> tree.set(k, SettingsJson.STRICT.valueToTree(v)));
        return SettingsJson.toSettings(tree);
    }

    /** One machine the steps act on, as NodeWiring orders them. */
    static final class Machine {
        final FakeFiles files = new FakeFiles();
        final FakeServices services = new FakeServices();
        final FakeCommands commands = new FakeCommands().answerPrefix(List.of("install"), Commands.Result.ok(""))
                .answerPrefix(List.of("exportfs"), Commands.Result.ok("")).answerPrefix(List.of("scontrol"), Commands.Result.ok(""));
        final FakeHostFiles host = new FakeHostFiles(files).with("/proc/filesystems", "nodev\tsysfs\n\text4\nnodev\tnfsd\n");
        final MungeStep munge = new MungeStep(files, services, Path.of("/"));
        final StorageStep storage = new StorageStep(files, host, services, commands, Path.of("/"));
        final SlurmStep slurm = new SlurmStep(files, services, commands, Path.of("/"), Path.of("/var/lib/slurmlet"));
        final PamStep pam = new PamStep(files, services, Path.of("/"), Path.of("/var/lib/slurmlet"), Optional.of("hpc-admins"));
        final List<Reconciler<?, ?>> steps = List.of(munge, storage, slurm, pam);
        boolean broken;

        Machine() {
            put("/etc/pam.d/sshd", "@include common-auth\naccount required pam_nologin.so\n@include common-account\n"
                    + "@include common-session\n");
            put("/etc/pam.d/common-session", "session required pam_unix.so\nsession optional pam_systemd.so\n");
            put("/usr/lib/security/pam_slurm_adopt.so", "\u007fELF");
        }

        void put(String path, String text) {
            files.put(Path.of(path), text.getBytes(StandardCharsets.UTF_8), "rw-r--r--", "root", "root");
        }

        final List<String> waited = new ArrayList<>();

        /** A pass of every step; the actions they did, in order (and what they held back, in {@link #waited}). */
        List<Action> pass(NodePlan plan) {
            List<Action> did = new ArrayList<>();
            waited.clear();
            for (Reconciler<?, ?> step : steps) {
                Outcome o = step.apply(plan);
                assertFalse(o.failed() && !broken, plan.node() + ": " + o);
                did.addAll(step.acted());
                waited.addAll(step.waiting());
            }
            return did;
        }

        Observed observed() {
            return new Observed((MungeSeen) munge.seen().orElse(null), (StorageSeen) storage.seen().orElse(null),
                    (PamSeen) pam.seen().orElse(null), io.slurmlet.agent.slurm.LocalJobs.running(host));
        }
    }

    /** Every machine applies {@code before} until it settles; then the dry run of {@code after} is compared with its apply. */
    static Map<String, NodeChange> previewIsWhatApplyDoes(SlurmSettings before, SlurmSettings after) {
        return previewIsWhatApplyDoes(before, after, machines -> { }, machines -> { });
    }

    /**
     * @param broken what goes wrong on the machines before they apply {@code before} (they then report it)
     * @param mended what is mended before they apply {@code after}
     */
    static Map<String, NodeChange> previewIsWhatApplyDoes(SlurmSettings before, SlurmSettings after,
                                                          java.util.function.Consumer<Map<String, Machine>> broken,
                                       java.util.function.Consumer<Map<String, Machine>> mended) {
        Map<String, NodeFacts> inventory = inventory();
        Map<String, Machine> machines = new LinkedHashMap<>();
        Map<String, Observed> reported = new TreeMap<>();
        Planner.Plans was = Planner.plan(before, inventory, KEY);
        MACHINES.forEach(n -> machines.put(n, new Machine()));
        broken.accept(machines);
        for (String n : MACHINES) {
            Machine m = machines.get(n);
            m.pass(was.nodes().get(n));
            m.pass(was.nodes().get(n));
            reported.put(n, m.observed());
        }
        mended.accept(machines);
        Map<String, NodeChange> preview = new TreeMap<>();
        Preview.of(new SettingsDocument(3, before), after, inventory, reported).nodes().forEach(c -> preview.put(c.node(), c));
        Planner.Plans will = Planner.plan(after, inventory, KEY);
        for (String n : MACHINES) {
            List<Action> did = machines.get(n).pass(will.nodes().get(n));
            NodeChange applied = Preview.change(n, Preview.roles(was.nodes().get(n)), Preview.roles(will.nodes().get(n)), did,
                    machines.get(n).waited, new FileDiffs());
            NodeChange shown = preview.get(n);
            List<String> users = shown == null ? List.of() : Preview.users(was.nodes().get(n), will.nodes().get(n)).stream()
                    .map(Action::will).toList();
            assertEquals(applied.files(), shown == null ? List.of() : shown.files(), n + ": the files");
            assertEquals(applied.daemons(), shown == null ? List.of() : shown.daemons(), n + ": the daemons");
            assertEquals(applied.actions(), shown == null ? List.of()
                    : shown.actions().stream().filter(a -> !users.contains(a)).toList(), n + ": the other actions");
        }
        return preview;
    }

    @Test
    void theFirstSettingsOfACluster() {
        previewIsWhatApplyDoes(NONE, cluster(Map.of()));
    }

    @Test
    void aPartitionRenamed() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("partition", "batch")));
    }

    @Test
    void sharedStorageServedByTheController() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))));
    }

    @Test
    void sharedStorageMovedToASitesExport() {
        previewIsWhatApplyDoes(cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))));
    }

    @Test
    void sharedStorageTakenAway() {
        previewIsWhatApplyDoes(cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))), cluster(Map.of()));
    }

    @Test
    void slurmletDisabled() {
        previewIsWhatApplyDoes(cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "server", "c0"), "enabled", false)));
    }

    @Test
    void usersKeptAndPamSlurmAdoptThenBack() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("users", "slurmlet")));
        previewIsWhatApplyDoes(cluster(Map.of("users", "slurmlet")), cluster(Map.of()));
    }

    @Test
    void aMountThatFailedIsShownAsTheMountItStillIsNotTheOneThePlanSays() {
        SlurmSettings nfs = cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export")));
        previewIsWhatApplyDoes(nfs, cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"), "partition", "batch")),
                machines -> {
                    machines.get("n2").services.failing("shared.mount");
                    machines.get("n2").broken = true;
                },
                machines -> machines.get("n2").services.recovered("shared.mount"));
    }

    @Test
    void aMountUnderARunningJobStaysAndTheDryRunSaysItWaits() {
        Map<String, NodeChange> moved = previewIsWhatApplyDoes(cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))),
                cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/other"))),
                machines -> machines.get("n2").host.stepOf(4242, "12"), machines -> { });
        assertEquals(List.of("mounting nas:/other at /shared instead of nas:/export waits for job 12 running here to end"),
                moved.get("n2").actions());
        assertEquals(List.of("mount nas:/other at /shared again, instead of nas:/export"), moved.get("n1").actions());
        Map<String, NodeChange> gone = previewIsWhatApplyDoes(cluster(Map.of("shared", Map.of("path", "/shared", "nfs", "nas:/export"))),
                cluster(Map.of()), machines -> machines.get("n1").host.stepOf(4242, "12").stepOf(4243, "9"), machines -> { });
        assertEquals(List.of("have slurmd no longer wait for shared storage", "unmounting /shared waits for jobs 9, 12 running here to end"),
                gone.get("n1").actions());
    }

    @Test
    void aNodeTakenOutOfSlurm() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("nodes", List.of("n1"), "lent", List.of("n1"))));
    }

    @Test
    void aSlurmConfAdditionThatIsReconfiguredAndOneThatRestarts() {
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("slurm_conf", Map.of("MaxJobCount", "20000"))));
        previewIsWhatApplyDoes(cluster(Map.of()), cluster(Map.of("slurm_conf", Map.of("SwitchType", "switch/none"))));
    }
}
