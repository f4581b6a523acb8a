package io.slurmlet.agent.slurm.conf;

import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.NodeWish;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.settings.SlurmConfKeys;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Slurm's files for 22.05 (Debian 12's Slurm), the oldest release slurmlet writes for. Each newer
 * generator extends the one before it and overrides only what its release changed.
 */
class Slurm2205 {

    /** The reason of the drain a node not lent to Slurm starts with. */
    static final String NOT_LENT = NodeWish.NOT_LENT;

    SlurmVersion since() {
        return SlurmVersion.of(22, 5);
    }

    final String name() {
        return since().release();
    }

    /** What the settings ask for that this release does not have. */
    List<Problem> unsupported(SlurmSettings settings, SlurmVersion controller) {
        List<Problem> problems = new ArrayList<>();
        if (settings.experimental().enableAsyncReply()) {
            problems.add(new Problem(
                    "experimental.enable_async_reply",
                    "true",
                    ("experimental.enable_async_reply needs Slurm 25.11 or later, and the controller runs %s: "
                                    + "upgrade Slurm on the controller, or set experimental.enable_async_reply=false")
                            .formatted(controller)));
        }
        return problems;
    }

    /** What the settings ask for that this release does by itself or differently: said, not refused. */
    List<String> notes(SlurmSettings settings, SlurmVersion controller) {
        return List.of();
    }

    final Map<String, String> files(RenderInput in, List<NodeFacts> nodes, MemoryClasses classes) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("slurm.conf", slurmConf(in, nodes, classes));
        files.put("cgroup.conf", cgroupConf());
        files.put("gres.conf", gresConf(nodes));
        files.put("plugstack.conf", plugstackConf(in));
        return files;
    }

    String slurmConf(RenderInput in, List<NodeFacts> nodes, MemoryClasses classes) {
        SlurmSettings s = in.settings();
        Layout l = in.layout();
        ConfText c = new ConfText("slurm.conf", name());
        c.set("ClusterName", s.clusterName());
        c.set("SlurmctldHost", controllerHost(in));
        if (s.slurmAuth()) {
            // Rendered for 24.05 and later only: AuthFloor keeps auth=slurm from any older controller or node.
            c.section("Authentication: Slurm's own, with the keys slurmlet gives every Slurm machine in slurm.jwks");
            c.set("AuthType", "auth/slurm");
            c.set("CredType", "cred/slurm");
        } else {
            c.section("Authentication: munge, with the key slurmlet gives every machine");
            c.set("AuthType", "auth/munge");
            c.set("CredType", "cred/munge");
        }
        c.section("Daemons");
        c.set("SlurmUser", "slurm");
        c.set("SlurmctldPort", l.slurmctldPort());
        if (l.slurmdPort() > 0) {
            c.set("SlurmdPort", l.slurmdPort());
        }
        c.set("StateSaveLocation", l.stateSaveLocation());
        c.set("SlurmdSpoolDir", l.slurmdSpoolDir());
        c.set("SlurmctldPidFile", l.slurmctldPidFile());
        c.set("SlurmdPidFile", l.slurmdPidFile());
        if (!l.slurmctldLogFile().isEmpty()) {
            c.set("SlurmctldLogFile", l.slurmctldLogFile());
        }
        if (!l.slurmdLogFile().isEmpty()) {
            c.set("SlurmdLogFile", l.slurmdLogFile());
        }
        // A node that was DOWN comes back on its own once it registers with a valid configuration;
        // a DRAIN (ours or an admin's) is never lifted by this.
        setDefault(c, s, "ReturnToService", 2);
        // Jobs' mail goes nowhere unless the site names a mailer: these machines need none.
        setDefault(c, s, "MailProg", "/bin/true");
        c.section("Scheduling: whole cores and memory, so jobs sharing a node do not starve each other");
        setDefault(c, s, "SchedulerType", "sched/backfill");
        c.set("SelectType", "select/cons_tres");
        c.set("SelectTypeParameters", "CR_Core_Memory");
        if (!nodes.isEmpty()) {
            // Without a default, a job that names no memory is given the whole node's, and nothing
            // else fits beside it: the smallest node's memory per CPU never over-commits any node.
            // Where nodes differ, each class of them has its own default (MemoryClasses).
            setDefault(
                    c,
                    s,
                    "DefMemPerCPU",
                    nodes.stream().mapToLong(MemoryClasses::perCpu).min().orElseThrow());
        }
        if (classes.submitToAll()) {
            c.comment(
                    "A job that names no partition is sent to every one, so it starts in its node's memory class with that "
                            + "class's DefMemPerCPU");
            c.set("JobSubmitPlugins", "all_partitions");
        }
        c.section("Processes: each job in its own cgroup"
                + (s.makesUsers()
                        ? "; PrologFlags=Contain lets pam_slurm_adopt put a user's ssh session into their job"
                        : ""));
        c.set("ProctrackType", "proctrack/cgroup");
        c.set("TaskPlugin", "task/cgroup,task/affinity");
        if (s.makesUsers()) {
            c.set("PrologFlags", "Contain");
        }
        Optional<String> siteProlog = s.slurmConf().entrySet().stream()
                .filter(e -> e.getKey().equalsIgnoreCase("Prolog"))
                .map(Map.Entry::getValue)
                .findFirst();
        if (in.pyxis()) {
            c.section(
                    "Jobs in containers: slurmlet's prolog makes the job's user their enroot folders (0700, theirs) before the job; "
                            + "that part never fails, so no node is drained for it");
            c.set("Prolog", ContainerFacts.PROLOG);
            siteProlog.ifPresent(site -> {
                // Slurm 22.05 runs one Prolog program: the site's runs from slurmlet's, after it, and ends the prolog
                // as it ends.
                c.comment(
                        "The site's Prolog (settings: slurm_conf.Prolog) runs from slurmlet's, after it; the prolog ends as it ends");
                c.comment(SITE_PROLOG + site);
            });
        }
        List<String> parameters = slurmctldParameters(s);
        if (!parameters.isEmpty()) {
            c.set("SlurmctldParameters", String.join(",", parameters));
        }
        if (nodes.stream().anyMatch(n -> n.gpuCount() > 0)) {
            c.set("GresTypes", "gpu");
        }
        c.section("Nodes: each as it reported its machine; a node not lent starts drained (" + NOT_LENT
                + "). Machines alike " + "(hardware, GPUs, lent or not) share a line, by host list");
        Set<String> lent = s.lentNodes();
        if (l.slurmdPort() == 0) {
            // Every slurmd on one host (a test layout): each node its own line and port.
            int port = 6818;
            for (NodeFacts n : nodes) {
                List<Object> line = new ArrayList<>(List.of("NodeName", n.name()));
                if (!n.address().isEmpty()) {
                    line.addAll(List.of("NodeAddr", n.address()));
                }
                line.addAll(List.of("Port", port++));
                line.addAll(nodeAttributes(n, lent));
                c.line(line.toArray());
            }
        } else {
            for (NodeLines.Line group : NodeLines.group(nodes, n -> nodeAttributes(n, lent))) {
                List<Object> line = new ArrayList<>(List.of("NodeName", group.names()));
                if (!group.addresses().isEmpty()) {
                    line.addAll(List.of("NodeAddr", group.addresses()));
                }
                line.addAll(group.attributes());
                c.line(line.toArray());
            }
        }
        c.section(
                classes.partitions().isEmpty()
                        ? "The one partition, every node of the settings"
                        : "The settings' partition, every node of the settings: a job that names it gets the cluster's DefMemPerCPU");
        List<Object> partition = new ArrayList<>(List.of("PartitionName", s.partition()));
        if (!nodes.isEmpty()) {
            partition.addAll(List.of(
                    "Nodes",
                    HostList.compress(nodes.stream().map(NodeFacts::name).toList())));
        }
        partition.addAll(List.of("Default", "YES", "MaxTime", "INFINITE", "State", "UP"));
        c.line(partition.toArray());
        if (!classes.partitions().isEmpty()) {
            c.section(
                    "Memory classes: hidden, each with its nodes' memory per CPU as the default of a job that names none; "
                            + "a class is kept, empty if need be, since Slurm fails every job that names a partition slurm.conf loses");
            classes.lines().forEach(c::line);
        }
        if (!s.slurmConf().isEmpty()) {
            c.section("The site's own lines (settings: slurm_conf)");
            s.slurmConf().forEach((key, value) -> {
                if (!(in.pyxis() && key.equalsIgnoreCase("Prolog"))) { // run from slurmlet's, above
                    c.set(key, value);
                }
            });
        }
        return c.toString();
    }

    /**
     * How slurm.conf names the site's own Prolog where slurmlet's takes its place (containers): a
     * comment, which slurmlet's prolog reads to run the site's after its own.
     */
    public static final String SITE_PROLOG = "slurmlet-site-prolog: ";

    /** A line of slurmlet's default, unless the site's slurm_conf sets the key itself. */
    private static void setDefault(ConfText c, SlurmSettings s, String key, Object value) {
        if (!SlurmConfKeys.overrides(s.slurmConf(), key)) {
            c.set(key, value);
        }
    }

    /** {@code SlurmctldParameters}: none before 25.11. */
    List<String> slurmctldParameters(SlurmSettings s) {
        return List.of();
    }

    /**
     * Always written: without one, 22.05's slurmstepd finds no cgroup and runs no job at all.
     * {@code CgroupAutomount} is left out: 24.11 and later call it defunct in every daemon's log.
     */
    String cgroupConf() {
        ConfText c = new ConfText("cgroup.conf", name());
        c.set("CgroupPlugin", "autodetect");
        constrain(c);
        return c.toString();
    }

    final void constrain(ConfText c) {
        c.comment("A job gets the cores, memory and GPUs it asked for, and no others.");
        c.set("ConstrainCores", "yes");
        c.set("ConstrainRAMSpace", "yes");
        c.set("ConstrainSwapSpace", "yes");
        c.set("ConstrainDevices", "yes");
    }

    String gresConf(List<NodeFacts> nodes) {
        ConfText c = new ConfText("gres.conf", name());
        for (NodeLines.Line group : NodeLines.groupNames(
                nodes.stream().filter(n -> n.gpuCount() > 0).toList(), NodeFacts::gpus)) {
            int first = 0;
            for (NodeFacts.Gpus g : group.first().gpus()) {
                c.line(
                        "NodeName",
                        group.names(),
                        "Name",
                        "gpu",
                        "Type",
                        g.slurmType(),
                        "File",
                        deviceFiles(first, g.count()));
                first += g.count();
            }
        }
        return c.toString();
    }

    String plugstackConf(RenderInput in) {
        ConfText c = new ConfText("plugstack.conf", name());
        if (in.pyxis()) {
            c.comment(
                    "pyxis (srun --container-image), built on every Slurm machine against its own Slurm: every one reported it.");
            c.comment(
                    "required: a job on a machine without it fails, so slurmlet names it only while every machine has it.");
            c.plugin("required", ContainerFacts.PYXIS_PLUGIN);
        } else if (in.settings().containers()) {
            c.comment(
                    "No SPANK plugins yet: pyxis comes here once every Slurm machine reports it (ctl slurm containers status).");
        } else {
            c.comment("No SPANK plugins: containers are off (ctl slurm containers on).");
        }
        return c.toString();
    }

    private static String controllerHost(RenderInput in) {
        String controller = in.settings().controller();
        NodeFacts facts = in.facts().get(controller);
        return facts == null || facts.address().isEmpty() ? controller : controller + "(" + facts.address() + ")";
    }

    static String deviceFiles(int first, int count) {
        if (first < 0 || count < 1) {
            throw new IllegalArgumentException(
                    "GPU device files from %d, %d of them: facts that FactsCheck refuses".formatted(first, count));
        }
        return count == 1 ? "/dev/nvidia" + first : "/dev/nvidia[" + first + "-" + (first + count - 1) + "]";
    }

    /** What a node's line says after its name and address: hardware, GPUs and state, the same for machines alike. */
    private static List<Object> nodeAttributes(NodeFacts n, Set<String> lent) {
        List<Object> line = new ArrayList<>(List.of(
                "CPUs",
                n.cpus(),
                "Boards",
                n.boards(),
                "SocketsPerBoard",
                n.sockets(),
                "CoresPerSocket",
                n.coresPerSocket(),
                "ThreadsPerCore",
                n.threadsPerCore(),
                "RealMemory",
                realMemory(n.memoryMiB())));
        if (n.gpuCount() > 0) {
            line.addAll(List.of(
                    "Gres",
                    String.join(
                            ",",
                            n.gpus().stream()
                                    .map(g -> "gpu:" + g.slurmType() + ":" + g.count())
                                    .toList())));
        }
        if (lent.contains(n.name())) {
            line.addAll(List.of("State", "UNKNOWN"));
        } else {
            line.addAll(List.of("State", "DRAIN", "Reason", NOT_LENT));
        }
        return line;
    }

    /**
     * What Slurm may give jobs of a node's memory: all but a margin for the system, 5% of it, at
     * least 512 MiB and at most 16 GiB.
     */
    static long realMemory(long memoryMiB) {
        long margin = Math.min(16 * 1024, Math.max(512, memoryMiB / 20));
        return Math.max(1, memoryMiB - margin);
    }
}
