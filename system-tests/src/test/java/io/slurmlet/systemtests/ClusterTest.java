package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsDocument;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.SlurmStatus;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * The local cluster of README's first command ({@code dev/cluster up}), shared by the {@code Cluster*IT}
 * classes of one suite: a leader and three nodes, each a systemd-nspawn container booted with systemd,
 * each running the agent as its systemd service, joined over TLS with the join token and the CA pin;
 * real munged, slurmctld and slurmd (Debian's Slurm of the suite: 22.05 on bookworm, 24.11 on trixie,
 * 26.05 on forky).
 *
 * <p>The cluster outlives a class: the first class of a suite boots it, the next ones take it over
 * (failsafe runs each class in a JVM of its own, one after the other), and Maven takes every test
 * cluster down before and after the system tests ({@code system-tests/cluster/it-clusters}). Only one
 * suite's cluster runs at a time: a class of the other suite takes the first one down.
 *
 * <p>Every class starts from {@link #baseline}, and so does every cell of a class whose cells do not
 * build on each other: a cell that fails leaves the cluster as it was, and the next cell puts the
 * baseline back first, so a failure stays in its cell and says what it saw.
 */
abstract class ClusterTest {

    /**
     * The Debian suite every machine runs: bookworm for the {@code Bookworm*IT} classes, else
     * -Dslurmlet.cluster.suite's, trixie by default (forky too). Set once by {@link #up}.
     */
    static String SUITE;
    /** The cluster's folder, one per suite: /var/tmp/slurmlet-it-cluster-SUITE. */
    static Path RUN;

    static Map<String, String> ENV;
    static final List<String> NODES = List.of("n0", "n1", "n2", "n3");
    static final List<String> SUITES = List.of("trixie", "bookworm", "forky");

    @BeforeAll
    static void up(TestInfo test) throws Exception {
        assertEquals(
                "0",
                Proc.run(List.of("id", "-u"), Map.of(), 10).out().strip(),
                "the local cluster boots containers: run the system tests as root, as CI does");
        SUITE = test.getTestClass()
                .filter(c -> c.getSimpleName().startsWith("Bookworm"))
                .map(c -> "bookworm")
                .orElse(System.getProperty("slurmlet.cluster.suite", "trixie"));
        RUN = runOf(SUITE);
        ENV = Map.of("SLURMLET_CLUSTER_DIR", RUN.toString(), "SLURMLET_CLUSTER_SUITE", SUITE);
        // One test cluster at a time on CI's two cores: another suite's goes first.
        for (String other : SUITES) {
            Path dir = runOf(other);
            if (!other.equals(SUITE) && Files.exists(dir.resolve("machines"))) {
                Proc.Result r = Proc.run(
                        cluster("down"),
                        Map.of("SLURMLET_CLUSTER_DIR", dir.toString(), "SLURMLET_CLUSTER_SUITE", other),
                        180);
                assertEquals(0, r.exit(), "taking the " + other + " test cluster down: " + r);
            }
        }
        if (!answers()) {
            Proc.run(cluster("down"), ENV, 180);
            Proc.Result r = Proc.run(cluster("up"), ENV, 900);
            assertEquals(0, r.exit(), r.toString());
        }
        baseline();
    }

    static Path runOf(String suite) {
        return Path.of("/var/tmp/slurmlet-it-cluster-" + suite);
    }

    /** Whether this suite's cluster is up from an earlier class: its machines there and the leader answering. */
    static boolean answers() throws IOException, InterruptedException {
        return Files.exists(RUN.resolve("machines"))
                && Proc.run(cluster("exec", "n0", "ctl", "slurm", "show"), ENV, 60)
                                .exit()
                        == 0;
    }

    /**
     * Takes the cluster down and sees that it left no network namespace and no mount behind, unless
     * -Dslurmlet.keep.cluster=true (a developer looks at it with {@code dev/cluster exec} and
     * SLURMLET_CLUSTER_DIR=/var/tmp/slurmlet-it-cluster-SUITE, then downs it).
     */
    static void downUnlessKept() throws Exception {
        if (Boolean.getBoolean("slurmlet.keep.cluster")) {
            return;
        }
        String prefix = Proc.run(
                        List.of(
                                AgentProcess.ROOT
                                        .resolve("system-tests/cluster/nspawn-cluster")
                                        .toString(),
                                "prefix",
                                RUN.resolve("machines").toString()),
                        Map.of(),
                        10)
                .out()
                .strip();
        Proc.Result r = Proc.run(cluster("down"), ENV, 180);
        assertEquals(0, r.exit(), r.toString());
        assertFalse(prefix.isEmpty());
        String netns = Proc.run(List.of("ip", "netns", "list"), Map.of(), 10).out();
        assertFalse(netns.contains(prefix), "down leaves no network namespace: " + netns);
        String mounts =
                Proc.run(List.of("cat", "/proc/self/mountinfo"), Map.of(), 10).out();
        assertFalse(mounts.contains(prefix), "down leaves no mount");
    }

    /** Whether each cell starts from {@link #baseline}: false where the cells are a sequence, each building on the one before. */
    boolean eachCellStartsFromTheBaseline() {
        return true;
    }

    @BeforeEach
    void startFromTheBaseline() throws Exception {
        if (eachCellStartsFromTheBaseline()) {
            baseline();
        }
    }

    /** The settings every cell starts from, as {@code ctl slurm set} takes them. */
    static final Map<String, String> BASELINE = baselineSettings();

    private static Map<String, String> baselineSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("enabled", "true");
        s.put("controller", "n0");
        s.put("nodes", "n1,n2,n3");
        s.put("all_nodes", "false");
        s.put("lent", "n1,n2");
        s.put("partition", "batch");
        s.put("users", "slurmlet");
        s.put("shared.path", "/shared");
        s.put("shared.server", "n0");
        s.put("shared.nfs", "");
        return s;
    }

    /** The baseline's settings as the leader holds them now, in {@link #BASELINE}'s form. */
    static Map<String, String> settingsNow() throws Exception {
        String answer = api("GET", "/v1/slurm/settings", "");
        assertTrue(answer.startsWith("HTTP/1.0 200"), answer);
        SlurmSettings s = SettingsJson.STRICT
                .readValue(answer.substring(answer.indexOf("\r\n\r\n") + 4), SettingsDocument.class)
                .settings();
        Map<String, String> now = new LinkedHashMap<>();
        now.put("enabled", String.valueOf(s.enabled()));
        now.put("controller", String.valueOf(s.controller()));
        now.put("nodes", s.nodes() == null ? "" : String.join(",", s.nodes()));
        now.put("all_nodes", String.valueOf(s.allNodes()));
        now.put("lent", s.lent() == null ? "" : String.join(",", s.lent()));
        now.put("partition", String.valueOf(s.partition()));
        now.put("users", s.users() == null ? "" : s.users());
        now.put("shared.path", s.shared() == null ? "" : s.shared().path());
        now.put("shared.server", s.shared() == null ? "" : s.shared().server());
        now.put("shared.nfs", s.shared() == null ? "" : s.shared().nfs());
        return now;
    }

    /**
     * Puts the cluster in the state every cell starts from, doing only what differs: no job in the
     * queue; no failpoint or masked slurmd a cell left; the site's platform hooks on the leader
     * ({@link #HOOK}); the settings of {@link #BASELINE} (n1 and n2 lent, the partition batch,
     * accounts from slurmlet, n0's export on /shared); bob's account (the heartbeat jobs write as
     * bob to his home there); n1 and n2 lent, n3 the platform's, and every machine settled.
     * Settings outside the baseline (the cluster's name, slurm.conf's site keys, containers) are
     * left as they are.
     */
    static void baseline() throws Exception {
        long start = System.nanoTime();
        List<String> did = new ArrayList<>();
        // An agent a cell stopped (the leader's, to see jobs run without it) and did not get to start again.
        for (String node : NODES) {
            if (ok(
                            node,
                            "sh",
                            "-c",
                            "systemctl is-active --quiet slurmlet-agent || { systemctl start slurmlet-agent; echo started; }")
                    .contains("started")) {
                did.add(node + ": started its agent");
            }
        }
        if (did.stream().anyMatch(d -> d.startsWith("n0:"))) {
            awaitLeaderAnswers();
        }
        String queued = ok("n0", "squeue", "-h", "-o", "%i").strip();
        if (!queued.isEmpty()) {
            List<String> cancel = new ArrayList<>(List.of("scancel"));
            cancel.addAll(Arrays.asList(queued.split("\\s+")));
            ok("n0", cancel.toArray(String[]::new));
            await(Duration.ofSeconds(90), "no job left in the queue", () -> {
                try {
                    return ok("n0", "squeue", "-h", "-o", "%i").isBlank();
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            did.add("cancelled jobs " + queued.replace('\n', ' '));
        }
        for (String node : List.of("n1", "n2", "n3")) {
            String mended = ok(
                            node,
                            "sh",
                            "-c",
                            ("if [ -e %s ]; then rm %s; systemctl daemon-reload; echo failpoint; fi; "
                                            + "if [ \"$(systemctl is-enabled slurmd)\" = masked ]; then systemctl unmask slurmd; echo unmasked; fi")
                                    .formatted(FAILPOINT, FAILPOINT))
                    .strip();
            if (!mended.isEmpty()) {
                did.add(node + ": " + mended.replace('\n', ' '));
            }
        }
        if (!ok("n0", "cat", "/etc/slurmlet/agent.yaml").contains("/usr/local/bin/platform-hook")) {
            installHooks();
            did.add("the platform's hooks");
        }
        Map<String, String> now = settingsNow();
        List<String> change = new ArrayList<>();
        BASELINE.forEach((key, value) -> {
            if (!value.equals(now.get(key))) {
                change.add(key + "=" + value);
            }
        });
        if (!change.isEmpty()) {
            awaitTaken(Duration.ofSeconds(90), change.toArray(String[]::new));
            did.add("ctl slurm set " + String.join(" ", change));
        }
        if (!api("GET", "/v1/users", "").contains("\"bob\"")) {
            String added = api("POST", "/v1/users", "{\"email\": \"bob@example.org\"}");
            assertTrue(added.startsWith("HTTP/1.0 201"), added);
            did.add("bob's account");
        }
        if (!did.isEmpty()) {
            awaitPhase("n1", "LENT", Duration.ofSeconds(60));
            awaitPhase("n2", "LENT", Duration.ofSeconds(60));
            await(Duration.ofSeconds(60), "n3 the platform's", () -> {
                try {
                    Object phase = lending("n3").get("phase");
                    return phase == null || phase.equals("PLATFORM");
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            await(Duration.ofSeconds(60), "bob's home on the shared storage", () -> {
                try {
                    return on("n0", "stat", "-c", "%U", "/shared/home/bob")
                                    .out()
                                    .strip()
                                    .equals("bob")
                            && on("n0", "id", "-u", "bob").exit() == 0;
                } catch (Exception e) {
                    return false;
                }
            });
        }
        awaitSettled(status().revision());
        if (!did.isEmpty()) {
            System.out.printf(
                    "ClusterIT %s: the baseline back in %.1f s: %s%n",
                    SUITE, (System.nanoTime() - start) / 1e9, String.join("; ", did));
        }
    }

    /** Waits (60 s at most) until the leader answers ctl on n0, after its agent was started or restarted. */
    static void awaitLeaderAnswers() throws InterruptedException {
        await(Duration.ofSeconds(60), "the leader answers", () -> {
            try {
                return on("n0", "ctl", "slurm", "show").exit() == 0;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** The site's platform hooks ({@link #HOOK}) in the leader's agent.yaml, and the leader started again with them. */
    static void installHooks() throws Exception {
        ok(
                "n0",
                "sh",
                "-c",
                "printf '%s' \"$0\" >/usr/local/bin/platform-hook && chmod 0755 /usr/local/bin/platform-hook"
                        + " && : >/var/log/platform-hook.log",
                HOOK);
        ok("n0", "sh", "-c", """
                cat >/etc/slurmlet/agent.yaml <<'YAML'
                slurmlet:
                  leader:
                    enabled: true
                    advertise: [n0]
                    platform:
                      drain: [/usr/local/bin/platform-hook, drain, "{node}", "{run}"]
                      release: [/usr/local/bin/platform-hook, release, "{node}", "{run}"]
                      busy-retry: 1s
                      hook-deadline: 20s
                YAML
                systemctl restart slurmlet-agent""");
        awaitLeaderAnswers();
    }

    static List<String> cluster(String... args) {
        List<String> command =
                new ArrayList<>(List.of(AgentProcess.ROOT.resolve("dev/cluster").toString()));
        command.addAll(Arrays.asList(args));
        return command;
    }

    static Proc.Result on(String node, String... command) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("exec", node));
        args.addAll(Arrays.asList(command));
        long start = System.nanoTime();
        Proc.Result r = Proc.run(cluster(args.toArray(String[]::new)), ENV, 120);
        double took = (System.nanoTime() - start) / 1e9;
        if (took >= 5) {
            String line = String.join(" ", command);
            System.out.printf(
                    "ClusterIT %s: %.1f s for %s: %s%n",
                    SUITE, took, node, line.length() > 160 ? line.substring(0, 160) + "…" : line);
        }
        return r;
    }

    static String ok(String node, String... command) throws IOException, InterruptedException {
        Proc.Result r = on(node, command);
        assertEquals(0, r.exit(), () -> node + ": " + String.join(" ", command) + "\n" + r);
        return r.out();
    }

    /** node → state and reason, from sinfo's fields (not its symbols). */
    static Map<String, String> sinfo() throws IOException, InterruptedException {
        Map<String, String> nodes = new LinkedHashMap<>();
        for (String line :
                ok("n0", "sinfo", "-h", "-N", "-o", "%N|%R|%T|%E").strip().split("\n")) {
            String[] f = line.split("\\|", 2);
            nodes.put(f[0], f[1]);
        }
        return nodes;
    }

    /** What must not change when nothing changed: each file's mtime (ns) and each daemon's PID. */
    static String snapshot(String node) throws IOException, InterruptedException {
        return ok(
                node,
                "sh",
                "-c",
                "find /etc/slurm /etc/munge/munge.key -maxdepth 1 -type f -printf '%p %T@\\n' | sort; "
                        + "for u in munge slurmctld slurmd; do echo \"$u $(systemctl show -p MainPID --value $u)\"; done");
    }

    static Map<String, String> snapshots() throws IOException, InterruptedException {
        Map<String, String> all = new LinkedHashMap<>();
        for (String node : NODES) {
            all.put(node, snapshot(node));
        }
        return all;
    }

    /** The nodes n0's slurm.conf names, its host lists expanded (machines alike share a line). */
    static List<String> slurmConfNodes() throws IOException, InterruptedException {
        return io.slurmlet.agent.slurm.ReconfigureTable.nodeNames(ok("n0", "cat", "/etc/slurm/slurm.conf"));
    }

    /**
     * The leader's status, from its API (what {@code ctl slurm status -o json} prints): the watches poll it
     * every second, and a ctl JVM each time kept one of these two cores busy under the cells' jobs.
     */
    static SlurmStatus status() throws IOException, InterruptedException {
        String answer = api("GET", "/v1/slurm/status", "");
        assertTrue(answer.startsWith("HTTP/1.0 200"), answer);
        return SettingsJson.STRICT.readValue(answer.substring(answer.indexOf("\r\n\r\n") + 4), SlurmStatus.class);
    }

    /** Waits until the agents of {@code nodes} (all: none named) have posted a pass the leader received after {@code since}. */
    static void awaitPassesAfter(Instant since, String... nodes) throws Exception {
        List<String> which = nodes.length == 0 ? NODES : List.of(nodes);
        java.util.concurrent.atomic.AtomicReference<String> seen =
                new java.util.concurrent.atomic.AtomicReference<>("nothing");
        await(
                Duration.ofSeconds(90),
                () -> which + " report a pass after " + since + "; status said last: " + seen.get(),
                () -> {
                    try {
                        SlurmStatus s = status();
                        seen.set(s.nodes().stream()
                                .map(n -> n.name() + " reported " + n.reported() + " steps "
                                        + n.steps().stream()
                                                .map(st -> st.step() + (st.failed() ? " FAILED " + st.lastError() : ""))
                                                .toList())
                                .toList()
                                .toString());
                        return s.nodes().stream()
                                                .filter(n -> which.contains(n.name()))
                                                .count()
                                        == which.size()
                                && s.nodes().stream()
                                        .filter(n -> which.contains(n.name()))
                                        .allMatch(n -> !n.reported().isEmpty()
                                                && Instant.parse(n.reported()).isAfter(since)
                                                && n.steps().stream()
                                                        .map(st -> st.step())
                                                        .collect(java.util.stream.Collectors.toSet())
                                                        .equals(stepsOf(n.name()))
                                                && n.steps().stream().noneMatch(st -> st.failed()));
                    } catch (Exception | AssertionError e) {
                        return false;
                    }
                });
    }

    /**
     * Until the leader made every machine's plan from settings {@code revision} or later and every
     * agent applied its plan with no step failed (status's plan columns); a machine whose plan the
     * change left as it was has nothing to apply.
     */
    static void awaitSettled(long revision) throws Exception {
        await(Duration.ofSeconds(90), "every machine applied its plan of settings revision " + revision, () -> {
            try {
                SlurmStatus s = status();
                return s.plannedFrom() >= revision
                        && s.settled()
                        && s.nodes().stream()
                                .map(n -> n.name())
                                .collect(java.util.stream.Collectors.toSet())
                                .containsAll(NODES)
                        && s.nodes().stream()
                                .allMatch(n -> n.steps().stream()
                                        .map(st -> st.step())
                                        .collect(java.util.stream.Collectors.toSet())
                                        .equals(stepsOf(n.name())));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    static void await(Duration limit, String what, BooleanSupplier condition) throws InterruptedException {
        await(limit, () -> what, condition);
    }

    /** {@link #await}, with the failure's words made when it fails (what the condition saw last). */
    static void await(Duration limit, java.util.function.Supplier<String> said, BooleanSupplier condition)
            throws InterruptedException {
        String what = said.get();
        long start = System.nanoTime();
        Instant end = Instant.now().plus(limit);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(end)) {
                throw new AssertionError("waited " + limit.toSeconds() + " s for: " + said.get());
            }
            Thread.sleep(250);
        }
        double waited = (System.nanoTime() - start) / 1e9;
        if (waited >= 3) {
            // Where a cell's time goes, for CI's time: every wait of 3 s or more, in the failsafe report's output.
            System.out.printf(
                    "ClusterIT %s: %.1f s until %s%n",
                    SUITE, waited, what.length() > 160 ? what.substring(0, 160) + "…" : what);
        }
    }

    static List<String> hostnamesOfATwoNodeJob(String... options) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("srun", "-N2", "-t", "1"));
        command.addAll(Arrays.asList(options));
        command.add("hostname");
        return Arrays.stream(ok("n0", command.toArray(String[]::new)).strip().split("\n"))
                .sorted()
                .toList();
    }

    /** Each machine's plan revisions as status says them: applied/published. */
    static Map<String, String> revisions() {
        try {
            Map<String, String> r = new java.util.TreeMap<>();
            status().nodes().forEach(n -> r.put(n.name(), n.planRevision() + "/" + n.planPublished()));
            return r;
        } catch (Exception e) {
            return Map.of();
        }
    }

    /**
     * Waits for {@code ctl slurm set ARGS} to be taken: the leader refuses a change that would end a
     * job until it hears that the job has ended, seconds after squeue shows none.
     */
    static void awaitTaken(Duration limit, String... args) throws InterruptedException {
        List<String> command = new ArrayList<>(List.of("ctl", "slurm", "set"));
        command.addAll(Arrays.asList(args));
        java.util.concurrent.atomic.AtomicReference<String> last =
                new java.util.concurrent.atomic.AtomicReference<>("");
        try {
            await(limit, String.join(" ", command) + " is taken", () -> {
                try {
                    Proc.Result r = on("n0", command.toArray(String[]::new));
                    last.set(r.toString());
                    return r.exit() == 0;
                } catch (Exception e) {
                    last.set(e.toString());
                    return false;
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; ctl's last answer: " + last.get(), e);
        }
    }

    /** The states of a job that has ended (scontrol keeps it for MinJobAge, 300 s). */
    static final Set<String> ENDED = Set.of(
            "COMPLETED",
            "CANCELLED",
            "FAILED",
            "TIMEOUT",
            "NODE_FAIL",
            "PREEMPTED",
            "BOOT_FAIL",
            "DEADLINE",
            "OUT_OF_MEMORY");

    /**
     * The job's state as slurmctld has it (PENDING, RUNNING, COMPLETING…), empty once it has ended or is
     * gone: scontrol's word, which names the end (squeue's default listing just leaves it out).
     */
    static String jobState(String job) {
        try {
            Proc.Result r = on("n0", "scontrol", "-o", "show", "job", job);
            if (r.exit() != 0) {
                return r.err().contains("Invalid job id") ? "" : "unknown";
            }
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("(?:^| )JobState=(\\S+)").matcher(r.out());
            return !m.find() ? "unknown" : ENDED.contains(m.group(1)) ? "" : m.group(1);
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }

    static final Map<String, Set<String>> STEPS = new java.util.concurrent.ConcurrentHashMap<>();

    /** The steps the agent on {@code node} has, as its readiness checks name them ("step slurm"): every one a pass reports. */
    static Set<String> stepsOf(String node) {
        return STEPS.computeIfAbsent(node, n -> {
            try {
                String answer = health(n);
                var checks = SettingsJson.STRICT
                        .readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4))
                        .get("checks");
                Set<String> steps = new java.util.TreeSet<>();
                checks.forEach(c -> {
                    if (c.get("name").asText().startsWith("step ")) {
                        steps.add(c.get("name").asText().substring(5));
                    }
                });
                return steps;
            } catch (IOException | InterruptedException e) {
                throw new java.io.UncheckedIOException(new IOException(e));
            }
        });
    }

    /** The readiness answer of the agent on {@code node}: the HTTP status line, then the body. */
    static String health(String node) throws IOException, InterruptedException {
        return on(
                        node,
                        "bash",
                        "-c",
                        "exec 3<>/dev/tcp/127.0.0.1/7817 && printf 'GET /q/health/ready HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3")
                .out();
    }

    /** The platform's hooks of the site, as a test stands them in: drain answers busy three times a node, then free. */
    static final String HOOK = """
            #!/bin/sh
            echo "$1 $2" >>/var/log/platform-hook.log
            echo "$(date +%s.%N) $1 $2 $3" >>/var/log/platform-hook.times
            if [ "$1" = drain ]; then
                n=$(grep -c "^drain $2$" /var/log/platform-hook.log)
                [ "$n" -gt 3 ] || { echo "pods still on $2 ($n)"; exit 75; }
                echo "$2 is free"
            fi
            exit 0
            """;

    static String hookLog() throws IOException, InterruptedException {
        return on("n0", "cat", "/var/log/platform-hook.log").out();
    }

    static long count(String text, String line) {
        return text.lines().filter(line::equals).count();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> lending(String node) throws IOException, InterruptedException {
        // The leader's record of the node, a document of its own; none while it has never left the platform.
        String kept = ok("n0", "sh", "-c", "cat /var/lib/slurmlet/lending/\"$0\" 2>/dev/null || echo '{}'", node);
        return SettingsJson.STRICT.readValue(kept, Map.class);
    }

    static void awaitPhase(String node, String phase, Duration limit) throws InterruptedException {
        await(limit, node + " in phase " + phase, () -> {
            try {
                return phase.equals(lending(node).get("phase"));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    /**
     * A node lent from the start, idle: no reason; on 24.11 (trixie) also "slurmlet: lent", where the
     * node was drained by slurmlet for a moment before its lend took effect (its slurmd registered
     * first) and 24.11 kept the reason, which slurmlet then replaced (system-tests/slurm/FINDINGS.md).
     */
    static void assertLentAndIdle(String partition, String actual, String context) {
        if (SUITE.equals("trixie") && actual != null && actual.equals(idleAfterADrain(partition, "slurmlet: lent"))) {
            return;
        }
        assertEquals(partition + "|idle|none", actual, context);
    }

    /**
     * sinfo's fields for an idle node in {@code partition} that was drained and resumed: no reason,
     * except on Slurm 24.11 (trixie), which keeps one after a resume (system-tests/slurm/FINDINGS.md):
     * there slurmlet replaces its own by "slurmlet: lent", and an admin's stays as the admin left it.
     */
    static String idleAfterADrain(String partition, String reasonOn2411) {
        return partition + "|idle|" + (SUITE.equals("trixie") ? reasonOn2411 : "none");
    }

    static void awaitSinfo(String node, String expected) throws InterruptedException {
        await(Duration.ofSeconds(30), node + " shows " + expected, () -> {
            try {
                return expected.equals(sinfo().get(node));
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    /** A call to the leader's admin API from n0, with the admin token, as a script on the leader's machine makes it. */
    static String api(String method, String path, String json) throws IOException, InterruptedException {
        return apiOn("n0", method, path, json);
    }

    /** The admin API of {@code node}'s agent over its TCP port, with that machine's admin token: HTTP/1.0, the answer as sent. */
    static String apiOn(String node, String method, String path, String json) throws IOException, InterruptedException {
        return ok(node, "bash", "-c", """
                exec 3<>/dev/tcp/127.0.0.1/7817
                printf '%s %s HTTP/1.0\\r\\nAuthorization: Bearer %s\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\n\\r\\n%s' \
                    "$0" "$1" "$(cat /var/lib/slurmlet/admin.token)" "${#2}" "$2" >&3
                cat <&3""", method, path, json);
    }

    /** alice's home: the baseline has n0's export on /shared, where slurmlet makes the homes. */
    static final String ALICE_HOME = "/shared/home/alice";

    /** alice's account (the one {@code ClusterAccountsIT} makes first), made where it is not there yet, and on every machine. */
    static void ensureAlice() throws Exception {
        if (!api("GET", "/v1/users", "").contains("\"alice\"")) {
            String added = api(
                    "POST", "/v1/users", "{\"email\": \"alice@example.org\", \"ssh_keys\": [\"" + ALICE_KEY + "\"]}");
            assertTrue(added.startsWith("HTTP/1.0 201"), added);
        }
        for (String node : NODES) {
            await(Duration.ofSeconds(60), "alice on " + node, () -> {
                try {
                    return on(node, "id", "-u", "alice").exit() == 0;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    static final String ALICE_KEY =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEuOvAXyxKBTxdBHVC6xfUjUGNUmwL6gPgKTGWGGjX2H alice@laptop";

    static final String FAILPOINT = "/etc/systemd/system/slurmlet-agent.service.d/failpoint.conf";

    /** systemd's monotonic time of the unit's last start, in microseconds. */
    static long activeSince(String node, String unit) throws Exception {
        return Long.parseLong(ok(node, "systemctl", "show", "-p", "ActiveEnterTimestampMonotonic", "--value", unit)
                .strip());
    }

    static final List<String> SSH = List.of(
            "ssh",
            "-i",
            "/root/alice_key",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=yes",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "LogLevel=ERROR");

    static Proc.Result ssh(String target, String... command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(SSH);
        argv.add(target);
        argv.addAll(Arrays.asList(command));
        return on("n0", argv.toArray(String[]::new));
    }

    /**
     * Where {@link #heartbeatJob}'s files are read: n0's /shared, unless a cell has the jobs write to
     * a site's export that n0 no longer mounts by the time they are read.
     */
    static volatile String[] beatsAt = {"n0", "/shared/home/bob/"};

    /**
     * bob's job on {@code node}: appends a timestamp to a file on /shared every 100 ms for about
     * {@code seconds}, or until it gets USR1 ({@link #finish}), then prints "finished" to its output there. Returns the job's id. One bash
     * process with no child per beat (its clock is $EPOCHREALTIME, its pause a read that times
     * out on a FIFO nothing writes), so a gap is /shared's or the job's, not a fork on a busy host.
     */
    static String heartbeatJob(String node, String name, int seconds) throws Exception {
        String beats = "/shared/home/bob/" + name + ".beats";
        String loop = ("f=$(mktemp -u); mkfifo $f; exec 3<>$f; rm $f; trap \"i=%d\" USR1; "
                        + "for ((i = 0; i < %d; i++)); do printf \"%%s\\n\" \"$EPOCHREALTIME\" >> %s; read -t 0.1 -u 3; done; echo finished")
                .formatted(seconds * 10, seconds * 10, beats);
        return ok(
                        "n0",
                        "runuser",
                        "-u",
                        "bob",
                        "--",
                        "sbatch",
                        "--parsable",
                        "-w",
                        node,
                        "-o",
                        "/shared/home/bob/" + name + ".out",
                        "--wrap",
                        "exec bash -c '" + loop + "'")
                .strip();
    }

    /** root's job on {@code node} that uses no /shared: a sleep of {@code seconds}, or until it gets USR1 ({@link #finish}). */
    static String sleepJob(String node, int seconds) throws Exception {
        return ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        node,
                        "-o",
                        "/dev/null",
                        "--wrap",
                        "trap 'exit 0' USR1; sleep %d & wait".formatted(seconds))
                .strip();
    }

    /**
     * Has the cell's jobs finish now, each exiting 0 as at its own end: USR1 to its batch script, once
     * every slurmd is active again and 3 s more of beats were written. Their durations are the longest a
     * cell may need; most cells settle well before, and their jobs' waits were most of CI's idle time.
     */
    static void finish(String cell, List<String> jobs) throws Exception {
        await(Duration.ofSeconds(60), cell + ": every slurmd is active again", () -> {
            try {
                for (String node : List.of("n1", "n2", "n3")) {
                    String state =
                            on(node, "systemctl", "is-active", "slurmd").out().strip();
                    if (!state.equals("active") && !state.equals("inactive")) {
                        return false;
                    }
                }
                return true;
            } catch (Exception e) {
                return false;
            }
        });
        Thread.sleep(3_000);
        for (String job : jobs) {
            await(Duration.ofSeconds(30), cell + ": job " + job + " told to finish", () -> {
                try {
                    return jobState(job).isEmpty()
                            || on("n0", "scancel", "--batch", "--signal=USR1", job)
                                            .exit()
                                    == 0;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    /**
     * Waits for {@link #heartbeatJob}'s script to be running (its first beats written): a job that
     * squeue shows RUNNING may still be launching, and a slurmd restarted in that second (the
     * cells' extra restart) can lose it.
     */
    static void awaitBeats(String name) throws InterruptedException {
        await(Duration.ofSeconds(20), name + " beats", () -> {
            try {
                Proc.Result r = on(beatsAt[0], "cat", beatsAt[1] + name + ".beats");
                return r.exit() == 0 && r.out().strip().split("\n").length >= 5;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** A {@link #heartbeatJob} on {@code node}, once slurmctld shows it running and its script beats. */
    static String beatingJob(String node, String name, int seconds) throws Exception {
        String job = heartbeatJob(node, name, seconds);
        await(
                Duration.ofSeconds(30),
                "job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        awaitBeats(name);
        return job;
    }

    /** When the last {@link #underJobs} cell ran its {@code ctl slurm set}, for a heartbeat gap's message. */
    static volatile Instant lastChange = Instant.EPOCH;

    /** The longest gap between two beats of {@link #heartbeatJob}'s file, in seconds. */
    static double longestGap(String name) throws Exception {
        return gap(name).seconds();
    }

    /**
     * The longest gap between two beats of a {@link #heartbeatJob}.
     *
     * @param seconds how long it was
     * @param after   the beat before it, in seconds since the epoch (the node's clock, which is the host's)
     */
    record Gap(double seconds, double after) {
        /** When it began, against the times of what the test did, for a failure's message. */
        String against(Map<String, Instant> events) {
            StringBuilder said = new StringBuilder("%.2f s from %s".formatted(seconds, instant(after)));
            events.entrySet().stream()
                    .sorted(Map.Entry.comparingByValue())
                    .forEach(e -> said.append("; %s at %s (%+.2f s)"
                            .formatted(e.getKey(), e.getValue(), e.getValue().toEpochMilli() / 1000.0 - after)));
            return said.toString();
        }

        private static Instant instant(double epochSeconds) {
            return Instant.ofEpochMilli(Math.round(epochSeconds * 1000));
        }
    }

    static Gap gap(String name) throws Exception {
        double[] t = Arrays.stream(ok(beatsAt[0], "cat", beatsAt[1] + name + ".beats")
                        .strip()
                        .split("\n"))
                .mapToDouble(Double::parseDouble)
                .toArray();
        assertTrue(t.length > 20, "the job beat " + t.length + " times");
        Gap longest = new Gap(0, t[0]);
        for (int i = 1; i < t.length; i++) {
            if (t[i] - t[i - 1] > longest.seconds()) {
                longest = new Gap(t[i] - t[i - 1], t[i - 1]);
            }
        }
        return longest;
    }

    /** Waits (30 s at most) until {@code unit} is active on {@code node} with another main PID than {@code was}. */
    static void awaitRunningAgain(String node, String unit, String was, String what) throws InterruptedException {
        await(Duration.ofSeconds(30), what, () -> {
            try {
                String now = pid(node, unit);
                return !now.equals("0")
                        && !now.equals(was)
                        && ok(node, "systemctl", "is-active", unit).strip().equals("active");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    static String pid(String node, String unit) throws Exception {
        return ok(node, "systemctl", "show", "-p", "MainPID", "--value", unit).strip();
    }

    static String slurmctldFatals(Instant since) throws Exception {
        return ok(
                        "n0",
                        "sh",
                        "-c",
                        "journalctl -u slurmctld -o cat --since @%d | grep -i fatal || true"
                                .formatted(since.getEpochSecond()))
                .strip();
    }

    /**
     * One cell of the live-change matrix: jobs on every lent node (one writing to /shared every
     * 100 ms, one that does not), {@code change} made under them, the cluster settled, then
     * slurmctld and every slurmd restarted once more, as a reboot or an upgrade would. Every job
     * ends with exit code 0, never requeued; /shared never stops for a second; slurmctld logs no
     * fatal; jobs run afterwards on {@code lentAfter}.
     */
    static void underJobs(String cell, List<String> lent, List<String> lentAfter, String... change) throws Exception {
        underJobs(cell, lent, lentAfter, (before, after) -> {}, change);
    }

    static void underJobs(String cell, List<String> lent, List<String> lentAfter, Settled settled, String... change)
            throws Exception {
        underJobs(cell, lent, lentAfter, settled, 20, change);
    }

    /** What a cell checks once the cluster settled, before the extra restart: each daemon's invocation before and after. */
    interface Settled {
        void check(Map<String, String> before, Map<String, String> after) throws Exception;
    }

    /** slurmctld and every slurmd restarted (a key they read only at start): each has a new invocation. */
    static final Settled EVERY_DAEMON_RESTARTED = (before, after) -> {
        for (String daemon : before.keySet()) {
            assertFalse(before.get(daemon).equals(after.get(daemon)), daemon + " restarted: " + before + " " + after);
        }
    };

    private static final java.util.regex.Pattern DRY_RUN_DAEMON =
            java.util.regex.Pattern.compile("(?m)^(n\\d+): (start|restart|reconfigure|stop) (slurmctld|slurmd) \\(");

    /** The controller's reconfigure owed after its restart (22.05, a node set changed): an action line of its own. */
    private static final java.util.regex.Pattern DRY_RUN_RECONFIGURE =
            java.util.regex.Pattern.compile("(?m)^(n\\d+): scontrol reconfigure$");

    /**
     * What a dry run's output says each daemon will do, as "n1 restart slurmd"; a slurmd's
     * reconfigure is the controller's {@code scontrol reconfigure}, listed as n0's.
     */
    static Set<String> dryRunDaemons(String printed) {
        Set<String> planned = new TreeSet<>();
        java.util.regex.Matcher m = DRY_RUN_DAEMON.matcher(printed);
        while (m.find()) {
            if (!(m.group(2).equals("reconfigure") && m.group(3).equals("slurmd"))) {
                planned.add(m.group(1) + " " + m.group(2) + " " + m.group(3));
            }
        }
        java.util.regex.Matcher r = DRY_RUN_RECONFIGURE.matcher(printed);
        while (r.find()) {
            planned.add(r.group(1) + " reconfigure slurmctld");
        }
        return planned;
    }

    private static final java.util.regex.Pattern JOURNAL_DAEMON =
            java.util.regex.Pattern.compile("^(started|restarted|stopped) (slurmctld|slurmd)\\b");

    /** What the agents said their slurm step did to the daemons since {@code since}, from their journals, as {@link #dryRunDaemons}. */
    static Set<String> daemonsActed(Instant since) throws Exception {
        Set<String> acted = new TreeSet<>();
        for (String node : NODES) {
            String journal = ok(
                    node,
                    "journalctl",
                    "-u",
                    "slurmlet-agent",
                    "--since",
                    "@" + since.getEpochSecond(),
                    "--no-pager",
                    "-o",
                    "cat");
            for (String line : journal.split("\n")) {
                int at = line.indexOf("] slurm: ");
                if (at < 0) {
                    continue;
                }
                for (String done : line.substring(at + "] slurm: ".length()).split("; ")) {
                    java.util.regex.Matcher m = JOURNAL_DAEMON.matcher(done);
                    if (m.find()) {
                        acted.add(node + " " + m.group(1).replaceAll("p?ed$", "") + " " + m.group(2));
                    } else if (done.startsWith("scontrol reconfigure")) {
                        acted.add(node + " reconfigure slurmctld");
                    }
                }
            }
        }
        return acted;
    }

    /**
     * Waits until the agents' journals since {@code since} hold each of {@code expected}'s daemon
     * actions (an outcome is logged once its whole step is done); on a timeout, says what they did hold
     * and each agent's last slurm step lines.
     */
    static void awaitActed(Duration limit, String what, Instant since, java.util.Collection<String> expected)
            throws Exception {
        try {
            await(limit, what + " " + expected, () -> {
                try {
                    return daemonsActed(since).containsAll(expected);
                } catch (Exception e) {
                    return false;
                }
            });
        } catch (AssertionError e) {
            StringBuilder journals = new StringBuilder();
            for (String node : NODES) {
                journals.append('\n')
                        .append(node)
                        .append(":\n")
                        .append(ok(
                                node,
                                "sh",
                                "-c",
                                "journalctl -u slurmlet-agent -o short-iso --no-pager --since @%d | grep -E ' (slurm|storage|munge|packages|users|pam|daemons)( failed)?: |SystemdServices\\]' | tail -16 || true"
                                        .formatted(since.getEpochSecond() - 120)));
            }
            throw new AssertionError(e.getMessage() + "; the journals hold " + daemonsActed(since) + journals, e);
        }
    }

    /** slurmctld's systemd invocation on n0 and slurmd's on n1 to n3: another one is a restart, a reconfigure keeps it. */
    static Map<String, String> invocations() throws Exception {
        Map<String, String> ids = new LinkedHashMap<>();
        ids.put(
                "slurmctld",
                ok("n0", "systemctl", "show", "-p", "InvocationID", "--value", "slurmctld")
                        .strip());
        for (String node : List.of("n1", "n2", "n3")) {
            ids.put(
                    node,
                    ok(node, "systemctl", "show", "-p", "InvocationID", "--value", "slurmd")
                            .strip());
        }
        return ids;
    }

    /**
     * Every agent's readiness, and the leader's {@code ctl slurm status}, asked once a second while a
     * cell's change settles: each answer that is not 200, and each status that does not list every
     * machine or says a step failed on one (nothing in a cell fails, so either saying otherwise is not
     * true), with its node, time and body.
     */
    static final class HealthWatch implements AutoCloseable {
        final List<String> untrue = java.util.Collections.synchronizedList(new ArrayList<>());
        final java.util.concurrent.atomic.AtomicInteger answers = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger statuses = new java.util.concurrent.atomic.AtomicInteger();
        private volatile boolean stopped;
        /** Set once the change is written: before it, the settings a cell changes may leave a machine out of the status. */
        volatile boolean everyMachineListed;

        private final Thread thread = new Thread(this::run, "cluster-health-watch");

        HealthWatch() {
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (!stopped) {
                for (String node : NODES) {
                    try {
                        String answer = health(node);
                        answers.incrementAndGet();
                        if (!answer.startsWith("HTTP/1.0 200")) {
                            String flat = answer.replace("\r\n", " ").replace('\n', ' ');
                            untrue.add(Instant.now() + " " + node + ": "
                                    + flat.substring(0, Math.min(flat.length(), 800)));
                        }
                    } catch (IOException | RuntimeException e) {
                        untrue.add(Instant.now() + " " + node + ": not asked: " + e);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                try {
                    SlurmStatus status = status();
                    statuses.incrementAndGet();
                    List<String> listed = status.nodes().stream()
                            .map(SlurmStatus.NodeStatus::name)
                            .toList();
                    if (everyMachineListed && !listed.containsAll(NODES)) {
                        untrue.add(Instant.now() + " status lists " + listed);
                    }
                    status.nodes()
                            .forEach(n -> n.steps().stream()
                                    .filter(st -> st.failed())
                                    .forEach(st -> untrue.add(Instant.now() + " status: " + n.name() + " step "
                                            + st.step() + " failed: " + st)));
                } catch (IOException | RuntimeException | AssertionError e) {
                    untrue.add(Instant.now() + " status: not asked: " + e);
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            thread.interrupt();
            thread.join(30_000);
        }
    }

    /**
     * @param settled checked once the change settled, with the daemons' invocations from before the change
     * @param seconds how long the jobs run
     */
    static void underJobs(
            String cell, List<String> lent, List<String> lentAfter, Settled settled, int seconds, String... change)
            throws Exception {
        Instant since = Instant.now();
        List<String> jobs = new ArrayList<>();
        for (String node : lent) {
            jobs.add(heartbeatJob(node, cell + "-" + node, seconds));
            jobs.add(sleepJob(node, seconds));
        }
        await(
                Duration.ofSeconds(30),
                cell + ": " + jobs + " run",
                () -> jobs.stream().allMatch(j -> jobState(j).equals("RUNNING")));
        for (String node : lent) {
            awaitBeats(cell + "-" + node);
        }
        List<String> command = new ArrayList<>(List.of("ctl", "slurm", "set"));
        command.addAll(Arrays.asList(change));
        Map<String, String> before = invocations();
        List<String> dryRun = new ArrayList<>(command);
        dryRun.add("--dry-run");
        Set<String> planned = dryRunDaemons(ok("n0", dryRun.toArray(String[]::new)));
        Instant changed = Instant.now();
        HealthWatch health = new HealthWatch();
        try {
            long set = System.nanoTime();
            lastChange = Instant.now();
            ok("n0", command.toArray(String[]::new));
            health.everyMachineListed = true;
            awaitSettled(status().revision());
            // A restart waits for the jobs being launched (up to about 10 s after they started), so a report can come
            // before the pass that restarts: what the dry run said is waited for, then compared exactly.
            awaitActed(Duration.ofSeconds(60), cell + ": the agents did what the dry run said", changed, planned);
            // For the matrix's table: what the change did to the daemons, and when every agent had done it.
            System.out.printf(
                    "ClusterIT %s matrix: %s (%s) under %d jobs: %s; settled in %.1f s%n",
                    SUITE,
                    cell,
                    String.join(" ", change),
                    jobs.size(),
                    planned.isEmpty() ? "no daemon action" : String.join(", ", planned),
                    (System.nanoTime() - set) / 1e9);
            settleChecks(cell, planned, before, invocations(), changed, settled);
        } finally {
            health.close();
        }
        assertTrue(
                health.answers.get() >= NODES.size() && health.statuses.get() >= 1,
                cell + ": health and status were asked");
        assertEquals(
                List.of(),
                health.untrue,
                cell + ": every agent's readiness was 200, and status true, at every look while the change "
                        + "settled (" + health.statuses.get() + " looks at status)");
        restartEveryDaemonAndAwait(cell, jobs, lent, lentAfter, since);
    }

    /** What a cell checks once its change settled: the daemons acted as the dry run said, and restarted only where it said so. */
    private static void settleChecks(
            String cell,
            Set<String> planned,
            Map<String, String> before,
            Map<String, String> after,
            Instant changed,
            Settled settled)
            throws Exception {
        assertEquals(
                planned, daemonsActed(changed), cell + ": what the dry run said the daemons would do, the agents did");
        Set<String> restarted = new TreeSet<>();
        before.forEach((daemon, id) -> {
            if (!id.equals(after.get(daemon))) {
                restarted.add(daemon.equals("slurmctld") ? "n0 restart slurmctld" : daemon + " restart slurmd");
            }
        });
        // A start (a node back in Slurm, whose old slurmd was retired) is a new invocation too.
        assertEquals(
                planned.stream()
                        .filter(d -> (d.contains(" restart ") || d.contains(" start "))
                                && (d.startsWith("n0 ") ? d.endsWith("slurmctld") : d.endsWith("slurmd")))
                        .map(d -> d.replace(" start ", " restart "))
                        .collect(java.util.stream.Collectors.toCollection(TreeSet::new)),
                restarted,
                cell + ": a daemon was restarted where the dry run (the version's table) said so, and nowhere else");
        settled.check(before, after);
    }

    /** The extra restart of slurmctld and every slurmd, then every job of the cell ends well and jobs run afterwards. */
    static void restartEveryDaemonAndAwait(
            String cell, List<String> jobs, List<String> lent, List<String> lentAfter, Instant since) throws Exception {
        Instant extra = Instant.now();
        ok("n0", "systemctl", "restart", "slurmctld");
        for (String node : List.of("n1", "n2", "n3")) {
            // try-restart, as a reboot would start only what is enabled: a slurmd slurmlet retired (a machine out of
            // the
            // nodes) stays stopped.
            ok(node, "systemctl", "try-restart", "slurmd");
        }
        finish(cell, jobs);
        for (String job : jobs) {
            await(Duration.ofSeconds(90), cell + ": job " + job + " ends", () -> {
                try {
                    return on("n0", "scontrol", "show", "job", job).out().contains("JobState=COMPLETED");
                } catch (Exception e) {
                    return false;
                }
            });
            String shown = ok("n0", "scontrol", "show", "job", job);
            assertTrue(
                    shown.contains(" ExitCode=0:0") && shown.contains(" Restarts=0 "),
                    cell + ": job " + job + "\n" + shown);
        }
        for (String node : lent) {
            assertEquals(
                    "finished",
                    ok(beatsAt[0], "cat", beatsAt[1] + cell + "-" + node + ".out")
                            .strip(),
                    cell + " on " + node);
            Gap gap = gap(cell + "-" + node);
            assertTrue(
                    gap.seconds() < 1.0,
                    cell + ": the job on " + node + " wrote to /shared without a stop of a second; the longest: "
                            + gap.against(
                                    lastChange.isAfter(since)
                                            ? Map.of(
                                                    "the jobs started",
                                                    since,
                                                    "the change",
                                                    lastChange,
                                                    "the extra restart",
                                                    extra)
                                            : Map.of("the jobs started", since, "the extra restart", extra))
                            + "; load: "
                            + ok("n0", "cat", "/proc/loadavg").strip());
        }
        assertEquals("", slurmctldFatals(since), cell);
        await(Duration.ofSeconds(60), cell + ": jobs run afterwards", () -> {
            try {
                return on("n0", "srun", "-N" + lentAfter.size(), "-w", String.join(",", lentAfter), "-t", "1", "true")
                                .exit()
                        == 0;
            } catch (Exception e) {
                return false;
            }
        });
    }

    static String unitState(String node, String unit) throws Exception {
        return on(node, "systemctl", "is-active", unit).out().strip() + "/"
                + on(node, "systemctl", "is-enabled", unit).out().strip();
    }

    /** The machines whose /shared is mounted from {@code source}, of {@code nodes}. */
    static List<String> mounting(String source, List<String> nodes) throws Exception {
        List<String> them = new ArrayList<>();
        for (String node : nodes) {
            if (on(node, "findmnt", "-n", "-o", "SOURCE", "/shared")
                    .out()
                    .strip()
                    .equals(source)) {
                them.add(node);
            }
        }
        return them;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    /** Each of {@code nodes}' munge key's md5sum, by node. */
    static Map<String, String> mungeKeys(List<String> nodes) throws Exception {
        Map<String, String> keys = new java.util.LinkedHashMap<>();
        for (String node : nodes) {
            keys.put(node, ok(node, "md5sum", "/etc/munge/munge.key").split(" ")[0]);
        }
        return keys;
    }

    /** Waits until every one of {@code before}'s machines holds a munge key other than the one it held, the same. */
    static void awaitOneNewMungeKey(String cell, Map<String, String> before) throws InterruptedException {
        await(Duration.ofSeconds(60), cell + ": " + before.keySet() + " hold a new munge key, the same", () -> {
            try {
                Map<String, String> now = mungeKeys(List.copyOf(before.keySet()));
                return now.entrySet().stream().noneMatch(k -> k.getValue().equals(before.get(k.getKey())))
                        && Set.copyOf(now.values()).size() == 1;
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    /** Waits until {@code asker}'s ctl says every machine holds the munge key of {@code rotation}. */
    static void awaitEveryMachineHoldsRotation(String cell, String asker, long rotation) throws InterruptedException {
        await(Duration.ofSeconds(60), cell + ": ctl slurm munge-key status says every machine holds it", () -> {
            try {
                var st = SettingsJson.STRICT.readTree(ok(asker, "ctl", "-o", "json", "slurm", "munge-key", "status"));
                return st.path("rotation").asLong() == rotation
                        && st.path("machines").size() == NODES.size()
                        && java.util.stream.StreamSupport.stream(
                                        st.path("machines").spliterator(), false)
                                .allMatch(m -> m.path("holds").asBoolean());
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
    }

    /** The InvocationIDs of slurmctld and slurmd on {@code node}, a line each. */
    static String daemons(String node) throws Exception {
        return ok(
                node,
                "sh",
                "-c",
                "for u in slurmctld slurmd; do echo \"$u $(systemctl show -p InvocationID --value $u)\"; done");
    }

    /** When {@code node}'s munged started, once since {@code since} (asserted): seconds of the clock the machines share. */
    static double mungeStartedOnceSince(String cell, String node, Instant since) throws Exception {
        String starts = ok(
                node,
                "sh",
                "-c",
                "journalctl -u munge -o short-unix --no-pager --since @%d | grep 'Started munge' || true"
                        .formatted(since.getEpochSecond()));
        assertEquals(1, starts.strip().lines().count(), cell + ": munged restarted once on " + node + ":\n" + starts);
        return Double.parseDouble(starts.strip().substring(0, starts.strip().indexOf(' ')));
    }

    /** {@code node}'s munged restarted once since {@code asked}, within 2 s of {@code switchAt} (printed). */
    static void assertSwitchedAtTheMoment(String cell, String node, Instant asked, Instant switchAt) throws Exception {
        double at = mungeStartedOnceSince(cell, node, asked);
        System.out.printf(
                "ClusterIT %s %s: %s's munged started %+.3f s from the moment%n",
                SUITE, cell, node, at - switchAt.toEpochMilli() / 1000.0);
        assertTrue(
                Math.abs(at - switchAt.toEpochMilli() / 1000.0) < 2.0,
                cell + ": " + node + " switched at the moment, not " + at);
    }
}
