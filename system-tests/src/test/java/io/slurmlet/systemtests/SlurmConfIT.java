package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.facts.SlurmdConfig;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.slurm.conf.Layout;
import io.slurmlet.agent.slurm.conf.RenderInput;
import io.slurmlet.agent.slurm.conf.Rendered;
import io.slurmlet.agent.slurm.conf.SlurmConfig;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.Experimental;
import io.slurmlet.model.settings.SlurmSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The files slurmlet writes, run by the real Slurm of each Debian suite: munged, slurmctld and two
 * slurmd (one lent, one not) from Debian's packages, on an overlay of the suite's node image (the
 * local cluster's, with -updates and -security; cached in /var/cache/slurmlet-test/images, made
 * when absent). The daemons' logs must show no configuration
 * problem, so a generator that writes what its version rejects fails here and not on a site.
 */
class SlurmConfIT {

    @BeforeAll
    static void needsRoot() throws Exception {
        String uid = new String(
                        new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes())
                .strip();
        assertEquals(
                "0",
                uid,
                "real Slurm needs root (mount namespaces, chroot, munge): run the system tests as root, as CI does");
    }

    /**
     * GPUs: without a GPU on this machine, only the 22.05 generator's gres.conf (explicit device
     * files) can be run for real, on fake /dev/nvidia devices; 24.11 and later let slurmd detect
     * the GPUs (AutoDetect=nvidia), which finds none here. Their lines are checked by the golden files.
     */
    @ParameterizedTest(name = "{0}, enable_async_reply={1}, {3} GPUs a node")
    @CsvSource({
        "bookworm,false,22.05,0",
        "bookworm,false,22.05,2",
        "trixie,false,24.11,0",
        "forky,false,25.11,0",
        "forky,true,25.11,0"
    })
    void slurmRunsOnTheFilesWeWrite(String suite, boolean asyncReply, String generator, int gpus) throws Exception {
        Path root = Path.of(Harness.ok(900, "slurm-root", "ensure", suite).strip());
        SlurmVersion version = SlurmVersion.parse(
                        Harness.ok(60, "slurm-root", "version", root.toString()).strip())
                .orElseThrow();

        // Every node is this machine, as slurmd -C in that root counts it.
        String slurmdC = slurmdC(root);
        Map<String, NodeFacts> facts = Map.of(
                "ctl", SlurmdConfig.parse("ctl", slurmdC).orElseThrow(),
                "n1", withGpus(SlurmdConfig.parse("n1", slurmdC).orElseThrow(), gpus),
                "n2", withGpus(SlurmdConfig.parse("n2", slurmdC).orElseThrow(), gpus));
        SlurmSettings settings = new SlurmSettings(
                true,
                "slurmlet-it",
                "ctl",
                List.of("n1", "n2"),
                false,
                List.of("n1"),
                "gpu",
                null,
                "slurmlet",
                false,
                new Experimental(asyncReply),
                // Site lines of values slurmlet quotes or writes as they are: Slurm must read them as set.
                Map.of(
                        "KillWait",
                        "10",
                        "MailProg",
                        "/usr/bin/site mail",
                        "SchedulerParameters",
                        "bf_window=2880,bf_interval=60"));
        Rendered rendered = SlurmConfig.render(new RenderInput(settings, facts, version, Layout.ONE_MACHINE));
        assertTrue(rendered.ok(), rendered.problems().toString());
        assertEquals(generator, rendered.generator());
        assertEquals(asyncReply, rendered.files().get("slurm.conf").contains("SlurmctldParameters=enable_async_reply"));

        Path work = Files.createTempDirectory("slurmlet-test-conf-" + suite + "-");
        Path conf = Files.createDirectories(work.resolve("conf"));
        Path run = work.resolve("run");
        for (var file : rendered.files().entrySet()) {
            Files.writeString(conf.resolve(file.getKey()), file.getValue());
        }
        try {
            Harness.ok(
                    180,
                    "slurm-cluster",
                    "up",
                    "--fake-gpus",
                    Integer.toString(gpus),
                    root.toString(),
                    conf.toString(),
                    run.toString(),
                    "n1",
                    "n2");

            String sinfo =
                    Harness.ok(60, "slurm-cluster", "run", run.toString(), "sinfo", "-N", "-h", "-o", "%N %P %t");
            assertTrue(sinfo.contains("n1 gpu") && sinfo.contains("n2 gpu"), "sinfo lists both nodes:\n" + sinfo);

            String config = Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "show", "config");
            for (String line : List.of(
                    "MailProg                = /usr/bin/site mail",
                    "SchedulerParameters     = bf_window=2880,bf_interval=60",
                    "AuthType                = auth/munge",
                    "KillWait                = 10 sec")) {
                assertTrue(
                        config.lines().anyMatch(l -> l.replaceAll("\\s+", " ").equals(line.replaceAll("\\s+", " "))),
                        "scontrol show config reads the site's lines and ours as written: " + line + "\n" + config);
            }

            Map<String, String> n1 = node(run, "n1");
            Map<String, String> n2 = node(run, "n2");
            assertEquals("IDLE", n1.get("State"), "the lent node is idle: " + n1);
            assertTrue(n2.get("State").contains("DRAIN"), "the node not lent is drained: " + n2);
            assertEquals("slurmlet: not lent", n2.get("Reason").replaceAll(" \\[.*$", ""), "with our reason: " + n2);

            String ran = Harness.ok(
                            120,
                            "slurm-cluster",
                            "run",
                            run.toString(),
                            "srun",
                            "-w",
                            "n1",
                            "-t",
                            "1",
                            "printenv",
                            "SLURMD_NODENAME")
                    .strip();
            assertEquals("n1", ran, "srun ran the job on the lent node");
            if (gpus > 0) {
                String devices = Harness.ok(
                                120,
                                "slurm-cluster",
                                "run",
                                run.toString(),
                                "srun",
                                "-w",
                                "n1",
                                "-t",
                                "1",
                                "--gres=gpu:tesla_t4:1",
                                "printenv",
                                "CUDA_VISIBLE_DEVICES")
                        .strip();
                assertEquals("0", devices, "a job asking for one GPU of the type slurm.conf names gets one");
            }

            // The daemons' stderr, and the log files slurm.conf names (slurmstepd writes only there).
            List<String> logs = new java.util.ArrayList<>();
            for (Path dir : List.of(run, run.resolve("upper/var/log/slurm"))) {
                try (var files = Files.list(dir)) {
                    files.map(Path::toString)
                            .filter(p -> p.endsWith(".log") && (p.contains("slurmctld") || p.contains("slurmd")))
                            .sorted()
                            .forEach(logs::add);
                }
            }
            assertEquals(6, logs.size(), "slurmctld's and two slurmd's stderr and log files: " + logs);
            Proc.Result check = Harness.run(60, "slurm-log-check", logs.toArray(String[]::new));
            assertEquals(0, check.exit(), "the daemons logged configuration problems:\n" + check);
        } finally {
            Harness.run(120, "slurm-cluster", "down", run.toString());
            Proc.deleteTree(work); // what failed is in the assertion's message
        }
    }

    /**
     * Values the settings check accepts that hold what a shell, passwd or a list would read as
     * something else ($(id), quotes, colons, commas, =, *, .., brackets, a space), in site lines of
     * string keys: real slurmctld 24.11 must read each exactly as set (scontrol show config).
     * What it read otherwise, the check would have to refuse.
     */
    @org.junit.jupiter.api.Test
    void slurmReadsEveryAcceptedSiteValueAsSet() throws Exception {
        Path root = Path.of(Harness.ok(900, "slurm-root", "ensure", "trixie").strip());
        SlurmVersion version = SlurmVersion.parse(
                        Harness.ok(60, "slurm-root", "version", root.toString()).strip())
                .orElseThrow();
        String slurmdC = slurmdC(root);
        Map<String, NodeFacts> facts = Map.of(
                "ctl",
                SlurmdConfig.parse("ctl", slurmdC).orElseThrow(),
                "n1",
                SlurmdConfig.parse("n1", slurmdC).orElseThrow());
        List<String> keys = List.of(
                "MailProg",
                "JobCompLoc",
                "SrunProlog",
                "SrunEpilog",
                "TaskProlog",
                "TaskEpilog",
                "ResvProlog",
                "ResvEpilog");
        List<String> values = List.of(
                "/opt/site tool --flag=1",
                "/opt/$(id)",
                "/opt/`id`",
                "/opt/it's",
                "/opt/a:0:0:",
                "/opt/a,b",
                "/opt/a=b",
                "/opt/*",
                "/opt/../x",
                "/opt/%00",
                "/opt/ALL",
                "/opt/n[1-4]",
                "/opt/" + "x".repeat(300),
                "/opt/a  b",
                "/opt/;reboot",
                "/opt/a|b");
        for (int from = 0; from < values.size(); from += keys.size()) {
            Map<String, String> site = new java.util.TreeMap<>();
            for (int i = 0; i < keys.size() && from + i < values.size(); i++) {
                site.put(keys.get(i), values.get(from + i));
            }
            SlurmSettings settings = new SlurmSettings(
                    true,
                    "slurmlet-it",
                    "ctl",
                    List.of("n1"),
                    false,
                    List.of("n1"),
                    "gpu",
                    null,
                    "slurmlet",
                    false,
                    new Experimental(false),
                    site);
            assertEquals(List.of(), settings.check(), "the check accepts " + site);
            Rendered rendered = SlurmConfig.render(new RenderInput(settings, facts, version, Layout.ONE_MACHINE));
            assertTrue(rendered.ok(), rendered.problems().toString());
            Path work = Files.createTempDirectory("slurmlet-test-site-");
            Path conf = Files.createDirectories(work.resolve("conf"));
            Path run = work.resolve("run");
            for (var file : rendered.files().entrySet()) {
                Files.writeString(conf.resolve(file.getKey()), file.getValue());
            }
            try {
                Harness.ok(180, "slurm-cluster", "up", root.toString(), conf.toString(), run.toString(), "n1");
                String config = Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "show", "config");
                for (var e : site.entrySet()) {
                    String shown = config.lines()
                            .filter(l -> l.startsWith(e.getKey() + " "))
                            .findFirst()
                            .map(l -> l.replaceFirst("^\\S+\\s+= ", ""))
                            .orElse("(not shown)");
                    assertEquals(e.getValue(), shown, e.getKey() + " as scontrol show config reads it");
                }
                assertTrue(config.lines().anyMatch(l -> l.matches("AuthType\\s+= auth/munge")), config);
            } finally {
                Harness.run(120, "slurm-cluster", "down", run.toString());
                Proc.deleteTree(work);
            }
        }
    }

    /**
     * Nodes whose memory per CPU differs (n1 given a quarter of this machine's memory, n2 all of it,
     * and a class kept from before that has no node left): a job that names no memory and runs on
     * n1 gets n1's class default, one on n2 n2's, and a job that names the settings' partition the
     * cluster's smallest. Real slurmctld of each suite, with job_submit/all_partitions from its
     * Debian package. A job pinned to a node that is not in the first class partition its list
     * names is started by the backfill scheduler (up to bf_interval after it is submitted, 30 s by
     * default, 1 s here): the main scheduler gives up on it at the first partition without that node.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"bookworm", "trixie", "forky"})
    void aJobThatNamesNoMemoryGetsTheShareOfTheNodeItRunsOn(String suite) throws Exception {
        Path root = Path.of(Harness.ok(900, "slurm-root", "ensure", suite).strip());
        SlurmVersion version = SlurmVersion.parse(
                        Harness.ok(60, "slurm-root", "version", root.toString()).strip())
                .orElseThrow();
        NodeFacts machine = SlurmdConfig.parse("n2", slurmdC(root)).orElseThrow();
        NodeFacts quarter = NodeFacts.builder("n1")
                .address("")
                .cpus(machine.cpus())
                .boards(machine.boards())
                .sockets(machine.sockets())
                .coresPerSocket(machine.coresPerSocket())
                .threadsPerCore(machine.threadsPerCore())
                .memoryMiB(machine.memoryMiB() / 4)
                .gpus(List.of())
                .os(machine.os())
                .slurmVersion(machine.slurmVersion())
                .build();
        Map<String, NodeFacts> facts =
                Map.of("ctl", SlurmdConfig.parse("ctl", slurmdC(root)).orElseThrow(), "n1", quarter, "n2", machine);
        SlurmSettings settings = new SlurmSettings(
                true,
                "slurmlet-it",
                "ctl",
                List.of("n1", "n2"),
                false,
                List.of("n1", "n2"),
                "batch",
                null,
                "slurmlet",
                false,
                new Experimental(false),
                // The backfill scheduler every second, not every 30 s: this cell is about memory, not about when.
                Map.of("SchedulerParameters", "bf_interval=1"));
        Rendered rendered =
                SlurmConfig.render(new RenderInput(settings, facts, version, Layout.ONE_MACHINE, java.util.Set.of(1L)));
        assertTrue(rendered.ok(), rendered.problems().toString());
        String slurmConf = rendered.files().get("slurm.conf");
        Map<String, String> classOf = new java.util.HashMap<>(); // node → its class partition
        Map<String, Long> defaultOf = new java.util.HashMap<>(); // partition → DefMemPerCPU
        Matcher m = Pattern.compile("(?m)^PartitionName=(batch_m\\d+)(?: Nodes=(\\S+))? .*DefMemPerCPU=(\\d+)")
                .matcher(slurmConf);
        while (m.find()) {
            defaultOf.put(m.group(1), Long.parseLong(m.group(3)));
            if (m.group(2) != null) {
                classOf.put(m.group(2), m.group(1));
            }
        }
        assertEquals(java.util.Set.of("n1", "n2"), classOf.keySet(), "each node in a class of its own:\n" + slurmConf);
        assertEquals(3, defaultOf.size(), "two classes and the kept empty one:\n" + slurmConf);
        long smallest = Long.parseLong(slurmConf.replaceAll("(?s).*\nDefMemPerCPU=(\\d+)\n.*", "$1"));
        assertEquals(defaultOf.get(classOf.get("n1")), smallest, "the cluster's default is the smallest node's");
        assertTrue(
                defaultOf.get(classOf.get("n2")) > 3 * smallest, "n2's share is about four times n1's: " + defaultOf);

        // Before: both nodes of one class, so no class partition, as slurmlet wrote until a node of another class came.
        Rendered before = SlurmConfig.render(new RenderInput(
                settings,
                Map.of(
                        "ctl",
                        facts.get("ctl"),
                        "n1",
                        SlurmdConfig.parse("n1", slurmdC(root)).orElseThrow(),
                        "n2",
                        machine),
                version,
                Layout.ONE_MACHINE));
        assertTrue(before.ok() && !before.files().get("slurm.conf").contains("batch_m"), before.toString());

        Path work = Files.createTempDirectory("slurmlet-test-memory-" + suite + "-");
        Path conf = Files.createDirectories(work.resolve("conf"));
        Path first = Files.createDirectories(work.resolve("before"));
        Path run = work.resolve("run");
        for (var file : rendered.files().entrySet()) {
            Files.writeString(conf.resolve(file.getKey()), file.getValue());
        }
        for (var file : before.files().entrySet()) {
            Files.writeString(first.resolve(file.getKey()), file.getValue());
        }
        try {
            Harness.ok(180, "slurm-cluster", "up", root.toString(), first.toString(), run.toString(), "n1", "n2");
            // A job running when the classes come (by a reconfigure) runs on through it and the restart below. (Each
            // node
            // has this machine's CPUs, 2 here: n1 takes one more job, n2 two.)
            List<String> old = List.of(Harness.ok(
                            60,
                            "slurm-cluster",
                            "run",
                            run.toString(),
                            "sbatch",
                            "--parsable",
                            "-t",
                            "5",
                            "-w",
                            "n1",
                            "--mem=100",
                            "--wrap",
                            "sleep 300")
                    .strip());
            Harness.ok(60, "slurm-cluster", "conf", run.toString(), conf.toString());
            Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "reconfigure");
            Harness.ok(120, "slurm-cluster", "wait", run.toString(), "60");
            String sinfo = Harness.ok(60, "slurm-cluster", "run", run.toString(), "sinfo", "-a", "-h", "-o", "%R %D");
            assertTrue(sinfo.lines().anyMatch(l -> l.equals("batch_m1 0")), "the empty class is taken: " + sinfo);
            Map<String, String> jobs = new java.util.LinkedHashMap<>();
            for (String how : List.of("-w n1", "-w n2", "-p batch -w n2")) {
                List<String> args = new java.util.ArrayList<>(
                        List.of("slurm-cluster", "run", run.toString(), "sbatch", "--parsable", "-t", "5"));
                args.addAll(List.of(how.split(" ")));
                args.addAll(List.of("--wrap", "sleep 120"));
                jobs.put(
                        how,
                        Harness.ok(60, args.get(0), args.subList(1, args.size()).toArray(String[]::new))
                                .strip());
            }
            Map<String, Map<String, String>> started = new java.util.HashMap<>();
            long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(90);
            while (started.size() < jobs.size() && System.nanoTime() < until) {
                for (var job : jobs.entrySet()) {
                    Map<String, String> fields = fields(Harness.ok(
                            60,
                            "slurm-cluster",
                            "run",
                            run.toString(),
                            "scontrol",
                            "show",
                            "job",
                            "-o",
                            job.getValue()));
                    if ("RUNNING".equals(fields.get("JobState"))) {
                        started.put(job.getKey(), fields);
                    }
                }
                Thread.sleep(200);
            }
            assertEquals(jobs.keySet(), started.keySet(), "every job started within 90 s: " + started);
            assertEquals(
                    classOf.get("n1"),
                    started.get("-w n1").get("Partition"),
                    started.get("-w n1").toString());
            assertEquals(
                    defaultOf.get(classOf.get("n1")) + "M", started.get("-w n1").get("MinMemoryCPU"), "n1's share");
            assertEquals(
                    classOf.get("n2"),
                    started.get("-w n2").get("Partition"),
                    started.get("-w n2").toString());
            assertEquals(
                    defaultOf.get(classOf.get("n2")) + "M", started.get("-w n2").get("MinMemoryCPU"), "n2's share");
            assertEquals("batch", started.get("-p batch -w n2").get("Partition"));
            assertEquals(
                    smallest + "M",
                    started.get("-p batch -w n2").get("MinMemoryCPU"),
                    "a job naming the partition gets the smallest");
            Map<String, String> n2 = node(run, "n2");
            assertEquals(
                    Long.toString(defaultOf.get(classOf.get("n2")) + smallest),
                    n2.get("AllocMem"),
                    "slurmctld counts both on n2: " + n2);

            // The shares outlive a restart of slurmctld and a reconfigure: the nodes' allocations stay. (22.05 and
            // 24.11
            // then show a running job's MinMemoryCPU as its first partition's default; its steps keep its allocation.)
            Map<String, String> n1 = node(run, "n1");
            Harness.ok(120, "slurm-cluster", "restart", run.toString(), "slurmctld");
            Harness.ok(120, "slurm-cluster", "wait", run.toString(), "60");
            Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "reconfigure");
            Harness.ok(120, "slurm-cluster", "wait", run.toString(), "60");
            for (String job : concat(jobs.values(), old)) {
                Map<String, String> now = fields(
                        Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "show", "job", "-o", job));
                assertEquals("RUNNING", now.get("JobState"), "job " + job + " after a restart of slurmctld: " + now);
                assertEquals("0", now.get("Restarts"), "job " + job + " was never requeued: " + now);
            }
            assertEquals(n1.get("AllocMem"), node(run, "n1").get("AllocMem"), "n1's allocation after a restart");
            assertEquals(n2.get("AllocMem"), node(run, "n2").get("AllocMem"), "n2's allocation after a restart");
            Harness.ok(
                    60,
                    "slurm-cluster",
                    "run",
                    run.toString(),
                    "scancel",
                    String.join(",", concat(jobs.values(), old)));
        } finally {
            Harness.run(120, "slurm-cluster", "down", run.toString());
            Proc.deleteTree(work);
        }
    }

    private static List<String> concat(java.util.Collection<String> a, java.util.Collection<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static NodeFacts withGpus(NodeFacts f, int gpus) {
        return gpus == 0
                ? f
                : NodeFacts.builder(f.name())
                        .address(f.address())
                        .cpus(f.cpus())
                        .boards(f.boards())
                        .sockets(f.sockets())
                        .coresPerSocket(f.coresPerSocket())
                        .threadsPerCore(f.threadsPerCore())
                        .memoryMiB(f.memoryMiB())
                        .gpus(List.of(new NodeFacts.Gpus("Tesla T4", gpus)))
                        .os(f.os())
                        .slurmVersion(f.slurmVersion())
                        .build();
    }

    /**
     * Jobs in containers on Slurm 26.05, which the local cluster's nodes (22.05, 24.11) do not run: real
     * enroot and pyxis with the files slurmlet writes for them. The root has what a machine has before
     * slurmlet's containers step (gcc, make, Slurm's headers); the test then runs that step's own
     * commands ({@code ContainersStep.installing} and {@code buildingPyxis}: enroot's .debs installed
     * with apt, pyxis built against this root's Slurm, installed where plugstack.conf names it) and
     * writes its files (enroot's settings, folders, the prolog), and does the leader's part:
     * the files rendered with pyxis, taken by an {@code scontrol reconfigure} of the running cluster.
     * slurmd runs in a mount namespace whose root the cluster's root is (pivot_root): the kernel refuses
     * the user namespaces enroot needs to a chrooted process.
     */
    @org.junit.jupiter.api.Test
    void jobsRunInContainersOnSlurm2605WithTheFilesWeWrite() throws Exception {
        Path root = Path.of(
                Harness.ok(1500, "slurm-root", "ensure", "forky", "containers").strip());
        SlurmVersion version = SlurmVersion.parse(
                        Harness.ok(60, "slurm-root", "version", root.toString()).strip())
                .orElseThrow();
        assertTrue(version.atLeast(26, 5), "forky's Slurm is 26.05 or newer: " + version);
        Proc.Result built = Proc.run(
                List.of(
                        AgentProcess.ROOT
                                .resolve("system-tests/containers/artifacts")
                                .toString(),
                        "ensure"),
                Map.of(),
                600);
        assertEquals(0, built.exit(), "the container artifacts:\n" + built);
        Path artifacts = Path.of(built.out().strip());

        String slurmdC = slurmdC(root);
        Map<String, NodeFacts> facts = Map.of(
                "ctl",
                SlurmdConfig.parse("ctl", slurmdC).orElseThrow(),
                "n1",
                SlurmdConfig.parse("n1", slurmdC).orElseThrow());
        SlurmSettings settings = new SlurmSettings(
                true,
                "slurmlet-it",
                "ctl",
                List.of("n1"),
                false,
                List.of("n1"),
                "batch",
                null,
                "slurmlet",
                true,
                new Experimental(false),
                Map.of());
        Rendered before = SlurmConfig.render(
                new RenderInput(settings, facts, version, Layout.ONE_MACHINE, java.util.Set.of(), false));
        Rendered withPyxis = SlurmConfig.render(
                new RenderInput(settings, facts, version, Layout.ONE_MACHINE, java.util.Set.of(), true));
        assertTrue(before.ok() && withPyxis.ok(), before.problems() + " " + withPyxis.problems());
        assertTrue(
                withPyxis
                        .files()
                        .get("plugstack.conf")
                        .contains("required " + io.slurmlet.model.facts.ContainerFacts.PYXIS_PLUGIN),
                withPyxis.files().get("plugstack.conf"));

        Path work = Files.createTempDirectory("slurmlet-test-containers-");
        Path run = work.resolve("run");
        Path conf = Files.createDirectories(work.resolve("conf"));
        Path confPyxis = Files.createDirectories(work.resolve("conf-pyxis"));
        before.files().forEach((name, text) -> write(conf.resolve(name), text, false));
        withPyxis.files().forEach((name, text) -> write(confPyxis.resolve(name), text, false));
        // The machine's own files as slurmlet's containers step leaves them: its folders (root's, 0755), enroot's
        // settings, the prolog; and what the test hands it: the artifacts, a file on the shared path.
        Path add = Files.createDirectories(work.resolve("add"));
        var wanted = io.slurmlet.agent.containers.ContainersDiff.desired(
                new io.slurmlet.model.plan.ContainersPlan(true, List.of(), "/shared", false));
        for (String folder : io.slurmlet.agent.containers.ContainersDiff.FOLDERS) {
            Files.createDirectories(add.resolve(folder.substring(1)));
        }
        wanted.files().forEach((path, kept) -> write(add.resolve(path.substring(1)), kept.content(), kept.program()));
        Path given = Files.createDirectories(add.resolve("opt/slurmlet-test"));
        try (var files = Files.list(artifacts)) {
            for (Path f : files.filter(f -> f.getFileName()
                            .toString()
                            .matches("enroot.*\\.deb|pyxis-.*\\.tar\\.gz|tiny\\.sqsh|cuda-like\\.sqsh"))
                    .toList()) {
                Files.copy(f, given.resolve(f.getFileName()));
            }
        }
        write(add.resolve("shared/hello.txt"), "from the shared path\n", false);
        write(given.resolve("job.sh"), """
                #!/bin/sh
                #SBATCH --container-image=/opt/slurmlet-test/tiny.sqsh
                #SBATCH --output=/tmp/container-job-%j.out
                #SBATCH --time=1
                cat /etc/os-release; id -u; cat /shared/hello.txt
                """, true);
        try (var files = Files.walk(add)) {
            for (Path f : files.toList()) {
                Files.setPosixFilePermissions(
                        f,
                        java.nio.file.attribute.PosixFilePermissions.fromString(
                                Files.isDirectory(f) || Files.isExecutable(f) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        String r = run.toString();
        try {
            Harness.ok(
                    180,
                    "slurm-cluster",
                    "up",
                    "--pivot-root",
                    "--add",
                    add.toString(),
                    root.toString(),
                    conf.toString(),
                    r,
                    "n1");
            // The containers step's commands, as ContainersStep runs them (the checked files are where the test put
            // them).
            List<String> enroot;
            String pyxis;
            try (var files = Files.list(given)) {
                List<String> names = files.map(f -> "/opt/slurmlet-test/" + f.getFileName())
                        .sorted()
                        .toList();
                enroot = names.stream().filter(f -> f.endsWith(".deb")).toList();
                pyxis = names.stream()
                        .filter(f -> f.matches(".*/pyxis-.*\\.tar\\.gz"))
                        .findFirst()
                        .orElseThrow();
            }
            inRoot(r, 300, io.slurmlet.agent.containers.ContainersStep.installing("deb", enroot));
            String dir = "/var/tmp/pyxis-build";
            Harness.ok(60, "slurm-cluster", "run", r, "mkdir", dir);
            for (List<String> command : io.slurmlet.agent.containers.ContainersStep.buildingPyxis(pyxis, dir)) {
                inRoot(r, 300, command);
            }
            Harness.ok(
                    60,
                    "slurm-cluster",
                    "run",
                    r,
                    "install",
                    "-m",
                    "0644",
                    dir + "/spank_pyxis.so",
                    io.slurmlet.model.facts.ContainerFacts.PYXIS_PLUGIN);
            Harness.ok(60, "slurm-cluster", "run", r, "useradd", "-u", "200001", "-m", "-s", "/bin/sh", "alice");
            assertTrue(
                    !Harness.ok(60, "slurm-cluster", "run", r, "srun", "--help").contains("--container-image"),
                    "no --container-image before plugstack.conf names pyxis");

            // The leader's part, once every machine reported pyxis: the files with it, and the controller's
            // reconfigure.
            Harness.ok(60, "slurm-cluster", "conf", r, confPyxis.toString());
            Harness.ok(60, "slurm-cluster", "run", r, "scontrol", "reconfigure");
            Harness.ok(120, "slurm-cluster", "wait", r);
            assertTrue(
                    Harness.ok(60, "slurm-cluster", "run", r, "srun", "--help").contains("--container-image"),
                    "srun offers --container-image once plugstack.conf names pyxis");

            String asRoot = Harness.ok(
                    180,
                    "slurm-cluster",
                    "run",
                    r,
                    "srun",
                    "-w",
                    "n1",
                    "-t",
                    "1",
                    "--container-image=/opt/slurmlet-test/tiny.sqsh",
                    "sh",
                    "-c",
                    "cat /etc/os-release; id -u; cat /shared/hello.txt");
            assertTrue(
                    asRoot.contains("NAME=\"slurmlet tiny\"")
                            && asRoot.contains("\n0\n")
                            && asRoot.contains("from the shared path"),
                    "root's job ran in the image, with the shared path:\n" + asRoot);
            String asAlice = Harness.ok(
                    180,
                    "slurm-cluster",
                    "run",
                    r,
                    "runuser",
                    "-u",
                    "alice",
                    "--",
                    "srun",
                    "-w",
                    "n1",
                    "-t",
                    "1",
                    "--container-image=/opt/slurmlet-test/tiny.sqsh",
                    "sh",
                    "-c",
                    "cat /etc/os-release; id -u; cat /shared/hello.txt");
            assertTrue(
                    asAlice.contains("NAME=\"slurmlet tiny\"")
                            && asAlice.contains("\n200001\n")
                            && asAlice.contains("from the shared path"),
                    "alice's job ran in the image as her:\n" + asAlice);
            assertEquals(
                    "700 200001",
                    Harness.ok(60, "slurm-cluster", "run", r, "stat", "-c", "%a %u", "/run/enroot/user-200001")
                            .strip(),
                    "slurmlet's prolog made alice her enroot folder, hers alone");

            // A CUDA image (its /etc/environment says NVIDIA_VISIBLE_DEVICES=all) on this machine without a GPU:
            // slurmlet's
            // environ.d file tells containers there is none, so enroot's NVIDIA hook asks for no nvidia-container-cli.
            List<String> cuda = List.of(
                    "slurm-cluster",
                    "run",
                    r,
                    "runuser",
                    "-u",
                    "alice",
                    "--",
                    "srun",
                    "-w",
                    "n1",
                    "-t",
                    "1",
                    "--container-image=/opt/slurmlet-test/cuda-like.sqsh",
                    "sh",
                    "-c",
                    "echo visible=$NVIDIA_VISIBLE_DEVICES");
            String told =
                    Harness.ok(180, cuda.get(0), cuda.subList(1, cuda.size()).toArray(String[]::new));
            assertTrue(
                    told.contains("visible=void"),
                    "a CUDA image runs where there is no GPU, told there is none:\n" + told);
            String environ =
                    Harness.ok(60, "slurm-cluster", "run", r, "cat", "/etc/enroot/environ.d/50-slurmlet-gpus.env");
            Harness.ok(60, "slurm-cluster", "run", r, "rm", "/etc/enroot/environ.d/50-slurmlet-gpus.env");
            Proc.Result without =
                    Harness.run(180, cuda.get(0), cuda.subList(1, cuda.size()).toArray(String[]::new));
            assertTrue(
                    without.exit() != 0 && without.toString().contains("nvidia-container-cli"),
                    "without that file the same job fails for want of nvidia-container-cli:\n" + without);
            Harness.ok(
                    60,
                    "slurm-cluster",
                    "run",
                    r,
                    "sh",
                    "-c",
                    "cat > /etc/enroot/environ.d/50-slurmlet-gpus.env <<'EOF'\n" + environ + "EOF");

            String job = Harness.ok(
                            60,
                            "slurm-cluster",
                            "run",
                            r,
                            "runuser",
                            "-u",
                            "alice",
                            "--",
                            "sbatch",
                            "--parsable",
                            "-w",
                            "n1",
                            "/opt/slurmlet-test/job.sh")
                    .strip();
            Map<String, String> shown = Map.of();
            for (int i = 0;
                    i < 600
                            && !shown.getOrDefault("JobState", "")
                                    .matches("COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY");
                    i++) {
                Thread.sleep(100);
                shown = fields(Harness.ok(60, "slurm-cluster", "run", r, "scontrol", "-o", "show", "job", job));
            }
            assertEquals(
                    "COMPLETED 0:0",
                    shown.get("JobState") + " " + shown.get("ExitCode"),
                    "alice's batch job in the image: " + shown);
            String out = Harness.ok(60, "slurm-cluster", "run", r, "cat", "/tmp/container-job-" + job + ".out");
            assertTrue(
                    out.contains("NAME=\"slurmlet tiny\"")
                            && out.contains("200001")
                            && out.contains("from the shared path"),
                    out);
            System.out.printf(
                    "SlurmConfIT containers on Slurm %s: root's and alice's srun, a CUDA image without a GPU and alice's sbatch ran in the image%n",
                    version);
        } finally {
            Harness.run(120, "slurm-cluster", "down", r);
            Proc.deleteTree(work);
        }
    }

    /** Runs {@code argv} in the running cluster's root. */
    private static String inRoot(String run, int seconds, List<String> argv) throws Exception {
        List<String> all = new java.util.ArrayList<>(List.of("run", run));
        all.addAll(argv);
        return Harness.ok(seconds, "slurm-cluster", all.toArray(String[]::new));
    }

    private static void write(Path file, String text, boolean program) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
            if (program) {
                Files.setPosixFilePermissions(
                        file, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * What {@code slurmd -C} in the root prints about this machine, as the agent's facts step reads it.
     * The root is the suite's node image, the lower layer of every local cluster's nodes: it is
     * bound read-only first, so nothing slurmd does can write it.
     */
    private static String slurmdC(Path root) throws Exception {
        String r = root.toString();
        Process p = new ProcessBuilder(
                        "unshare",
                        "--mount",
                        "--propagation",
                        "private",
                        "sh",
                        "-ec",
                        "mount --bind \"$1\" \"$1\"; mount -o remount,bind,ro \"$1\"; mount --bind /proc \"$1/proc\"; "
                                + "mount --rbind /sys \"$1/sys\"; exec chroot \"$1\" /usr/sbin/slurmd -C",
                        "slurmd-C",
                        r)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "slurmd -C in " + r + ":\n" + out);
        return out;
    }

    /** KEY=VALUE, a value running to the next key, which may hold ':' or '/' (AllocNode:Sid=, Socks/Node=). */
    private static final Pattern FIELD = Pattern.compile("(\\w+)=(.*?)(?= [\\w:/]+=|$)");

    /** {@code scontrol show node -o NODE} as key → value. */
    private static Map<String, String> node(Path run, String name) throws Exception {
        return fields(Harness.ok(60, "slurm-cluster", "run", run.toString(), "scontrol", "show", "node", "-o", name));
    }

    /** One line of {@code scontrol show … -o} as key → value. */
    private static Map<String, String> fields(String shown) {
        String line = shown.strip();
        Map<String, String> fields = new java.util.HashMap<>();
        Matcher m = FIELD.matcher(line);
        while (m.find()) {
            fields.put(m.group(1), m.group(2));
        }
        return fields;
    }
}
