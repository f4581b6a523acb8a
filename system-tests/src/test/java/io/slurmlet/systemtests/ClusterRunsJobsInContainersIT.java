package io.slurmlet.systemtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Jobs in containers on the local cluster, with real enroot and pyxis. A sequence: containers on
 * (cell 28) sets up the mirror and the leader's table the next two cells use, so these cells run
 * in order and each builds on the one before; the class starts from the baseline. It leaves n2 a
 * GPU machine whose stand-in GPUs Slurm 24.11 refuses (a drain of slurmctld's own) and containers
 * on: of the trixie classes only {@link ClusterStandbysOnEtcdIT} comes after it (failsafe's
 * alphabetical order), and that one minds neither.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterRunsJobsInContainersIT extends ClusterTest {

    /** A sequence: each cell builds on the one before (the mirror, the table, containers on). */
    @Override
    boolean eachCellStartsFromTheBaseline() {
        return false;
    }

    /**
     * Jobs in containers, with real enroot and pyxis: the leader's table pins the files a mirror on the
     * cluster's network serves (built from system-tests/containers/fixtures by system-tests/containers/artifacts),
     * {@code ctl slurm containers on} under running jobs has every Slurm machine install enroot and
     * build pyxis against its own Slurm, and Slurm loads pyxis (plugstack.conf, and slurmlet's prolog)
     * only once the last machine reports it: a reconfigure, no daemon restarted, no job hurt. Then a
     * job runs in a container as root and as alice (UID over 200000), with /shared inside, by srun
     * and by sbatch.
     */
    @Test
    @Order(28)
    void containersOnUnderJobsInstallEnrootAndPyxisEverywhereThenSlurmLoadsPyxisAndJobsRunInContainers()
            throws Exception {
        ensureAlice(); // a job in a container runs as alice too
        Proc.Result built = Proc.run(
                List.of(
                        AgentProcess.ROOT
                                .resolve("system-tests/containers/artifacts")
                                .toString(),
                        "ensure"),
                Map.of(),
                300);
        assertEquals(0, built.exit(), built.toString());
        String artifacts = built.out().strip();
        assertTrue(Files.isRegularFile(Path.of(artifacts, "table.json")), artifacts);
        // The mirror serves a folder of its own, so that a file can be swapped under it: first enroot's package with
        // its
        // last byte changed, of the table's size but not its digest (a byte more is cut at the size, before any
        // digest).
        Path served = RUN.resolve("mirror");
        Files.createDirectories(served);
        try (var files = Files.list(Path.of(artifacts))) {
            for (Path f : files.toList()) {
                Files.copy(f, served.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        com.fasterxml.jackson.databind.JsonNode table = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(Path.of(artifacts, "table.json").toFile());
        String enrootDeb = "";
        String enrootSha = "";
        for (com.fasterxml.jackson.databind.JsonNode row : table.get("artifacts")) {
            if (row.get("name").asText().equals("enroot")) {
                enrootDeb = row.get("file").asText();
                enrootSha = row.get("sha256").asText();
            }
        }
        assertFalse(enrootDeb.isEmpty(), "the test table names enroot's package: " + table);
        byte[] changed = Files.readAllBytes(served.resolve(enrootDeb));
        changed[changed.length - 1] ^= (byte) 0xff;
        Files.write(served.resolve(enrootDeb), changed);
        try (Mirror mirror = Mirror.serve(served)) {
            Proc.Result refused = on("n0", "ctl", "slurm", "containers", "on");
            assertFalse(refused.exit() == 0, refused.toString());
            assertTrue(
                    refused.toString().contains("containers=true cannot take effect: no mirror is configured"),
                    refused.toString());

            ok(
                    "n0",
                    "sh",
                    "-c",
                    "printf '%s' \"$0\" >/etc/slurmlet/containers-table.json",
                    Files.readString(Path.of(artifacts, "table.json")));
            ok("n0", "sh", "-c", """
                    printf '    containers:\n      table: /etc/slurmlet/containers-table.json\n      mirror: %s\n' >>/etc/slurmlet/agent.yaml
                    systemctl restart slurmlet-agent""".formatted(mirror.url()));
            awaitLeaderAnswers();
            ok("n0", "curl", "-fsS", "-o", "/shared/tiny.sqsh", mirror.url() + "tiny.sqsh");

            // A file on the mirror that is not the one the table pins: refused on every machine, both digests in
            // status,
            // nothing installed, plugstack.conf names no plugin. Then off, and the right file on the mirror.
            ok("n0", "ctl", "slurm", "containers", "on");
            String pinned = enrootSha;
            await(
                    Duration.ofSeconds(90),
                    "every Slurm machine refuses the mirror's enroot package, naming both digests",
                    () -> {
                        try {
                            String status = ok("n0", "ctl", "slurm", "status");
                            return NODES.stream()
                                    .allMatch(node -> status.lines()
                                            .anyMatch(l -> l.startsWith("  " + node + " containers: ")
                                                    && l.contains("the leader's table pins " + pinned
                                                            + ": refused, nothing installed")
                                                    && l.matches(".* has sha256 [0-9a-f]{64}, .*")));
                        } catch (Exception | AssertionError e) {
                            return false;
                        }
                    });
            for (String node : NODES) {
                assertFalse(
                        on(node, "dpkg-query", "-W", "enroot").exit() == 0,
                        node + ": no enroot installed from a file of another digest");
                assertFalse(
                        on(node, "test", "-e", "/usr/local/lib/slurm/spank_pyxis.so")
                                        .exit()
                                == 0,
                        node + ": no pyxis either");
                assertFalse(ok(node, "cat", "/etc/slurm/plugstack.conf").contains("spank_pyxis"), node);
            }
            String held = ok("n0", "ctl", "slurm", "containers", "status");
            assertTrue(
                    held.contains("the containers step failed on:")
                            && NODES.stream()
                                    .allMatch(node -> held.lines()
                                            .anyMatch(l ->
                                                    l.startsWith("  " + node + ": ") && l.contains("pins " + pinned))),
                    "containers status says why each machine holds pyxis back:\n" + held);
            System.out.printf(
                    "ClusterIT %s containers: a wrong digest on the mirror was refused on every machine, nothing installed%n",
                    SUITE);
            ok("n0", "ctl", "slurm", "containers", "off");
            // The right file replaces the wrong one in one rename: a machine fetching meanwhile sees one or the other.
            Path right = served.resolve(enrootDeb + ".part");
            Files.copy(Path.of(artifacts, enrootDeb), right, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.move(right, served.resolve(enrootDeb), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            // Every machine has applied the "off" (its containers step no longer failed) before the cell begins: a pass
            // of the refused plan still under way would otherwise report its failure into the cell's health watch.
            await(Duration.ofSeconds(90), "every machine applied containers=false, no step failed", () -> {
                try {
                    return status().nodes().stream()
                            .noneMatch(n -> n.steps().stream().anyMatch(st -> st.failed()));
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });

            String cell = "containers-on";
            Instant since = Instant.now();
            List<String> lent = List.of("n1", "n2");
            List<String> jobs = new ArrayList<>();
            for (String node : lent) {
                jobs.add(heartbeatJob(node, cell + "-" + node, 90));
                jobs.add(sleepJob(node, 90));
            }
            await(
                    Duration.ofSeconds(30),
                    cell + ": " + jobs + " run",
                    () -> jobs.stream().allMatch(j -> jobState(j).equals("RUNNING")));
            for (String node : lent) {
                awaitBeats(cell + "-" + node);
            }
            Map<String, String> before = invocations();
            HealthWatch health = new HealthWatch();
            long set = System.nanoTime();
            double loaded;
            try {
                assertFalse(
                        ok("n0", "srun", "--help").contains("--container-image"),
                        "srun offers no --container-image before pyxis is loaded");
                // The dry run is each machine's containers step's own diff against what it saw with containers off
                // (its
                // architecture, enroot's packages, Slurm's headers): the facts alone say neither of these two.
                String dryRun = ok("n0", "ctl", "slurm", "set", "containers=true", "--dry-run");
                for (String node : NODES) {
                    assertTrue(
                            dryRun.lines().anyMatch(l -> l.startsWith(node + ": fetch and check ")),
                            node + ": the files checked before any is installed, in the dry run:\n" + dryRun);
                    assertTrue(
                            dryRun.lines().anyMatch(l -> l.matches(node + ": build pyxis \\S+ for Slurm [0-9].*")),
                            node + ": pyxis built for the Slurm of its headers, in the dry run:\n" + dryRun);
                }
                ok("n0", "ctl", "slurm", "containers", "on");
                health.everyMachineListed = true;
                // Each look reads the machines' plugstack.conf, then the leader's status: once any names pyxis, every
                // machine
                // must already have reported its own (facts never go back), else a machine was given pyxis too early.
                List<String> early = new ArrayList<>();
                await(Duration.ofSeconds(150), "every machine's plugstack.conf names pyxis", () -> {
                    List<String> naming = NODES.stream()
                            .filter(ClusterRunsJobsInContainersIT::namesPyxis)
                            .toList();
                    if (!naming.isEmpty() && early.isEmpty()) {
                        try {
                            status().nodes().stream()
                                    .filter(n -> NODES.contains(n.name()))
                                    .filter(n -> n.containers() == null
                                            || n.containers().pyxis().isEmpty())
                                    .forEach(n -> early.add(
                                            naming + " named pyxis while " + n.name() + " had reported none"));
                        } catch (Exception e) {
                            return false;
                        }
                    }
                    return naming.size() == NODES.size();
                });
                assertEquals(List.of(), early, cell + ": plugstack.conf named pyxis only once every machine had it");
                loaded = (System.nanoTime() - set) / 1e9;
                for (String node : NODES) {
                    assertTrue(
                            ok(node, "cat", "/etc/slurm/slurm.conf")
                                    .contains("\nProlog=/usr/local/lib/slurmlet/prolog\n"),
                            node);
                    assertTrue(ok(node, "enroot", "version").strip().equals("4.1.2"), node);
                    assertTrue(
                            ok(node, "cat", "/usr/local/lib/slurmlet/pyxis.json")
                                    .contains("\"slurm\":\""),
                            node);
                }
                // What each machine reports of its plugin is that file's own digest, as status shows it.
                String shown = ok("n0", "ctl", "slurm", "containers", "status");
                for (String node : NODES) {
                    String sha = ok(node, "sha256sum", "/usr/local/lib/slurm/spank_pyxis.so")
                            .substring(0, 12);
                    assertTrue(
                            shown.lines().anyMatch(l -> l.startsWith(node + " ") && l.contains(" " + sha + " ")),
                            node + "'s plugin has sha256 " + sha + "…, as containers status shows:\n" + shown);
                }
                awaitActed(
                        Duration.ofSeconds(60),
                        cell + ": the controller reconfigured for plugstack.conf and the prolog",
                        since,
                        List.of("n0 reconfigure slurmctld"));
                assertEquals(before, invocations(), cell + ": a reconfigure, no daemon restarted");
                assertTrue(
                        ok("n0", "srun", "--help").contains("--container-image"),
                        "srun offers --container-image once pyxis is loaded");
            } finally {
                health.close();
            }
            assertEquals(
                    List.of(),
                    health.untrue,
                    cell + ": every agent's readiness was 200, and status true, at every look");
            System.out.printf(
                    "ClusterIT %s matrix: %s (containers=true) under %d jobs: reconfigure of slurmctld and every slurmd "
                            + "once every machine had pyxis; plugstack loaded pyxis %.1f s after the set%n",
                    SUITE, cell, jobs.size(), loaded);
            restartEveryDaemonAndAwait(cell, jobs, lent, lent, since);

            long first = System.nanoTime();
            String asRoot = ok(
                    "n0",
                    "srun",
                    "-N1",
                    "-w",
                    "n1",
                    "-t",
                    "1",
                    "--container-image=/shared/tiny.sqsh",
                    "sh",
                    "-c",
                    "cat /etc/os-release; id -u; ls /shared/tiny.sqsh");
            System.out.printf(
                    "ClusterIT %s containers: the first container job took %.2f s%n",
                    SUITE, (System.nanoTime() - first) / 1e9);
            assertTrue(
                    asRoot.contains("NAME=\"slurmlet tiny\"")
                            && asRoot.contains("\n0\n")
                            && asRoot.contains("/shared/tiny.sqsh"),
                    asRoot);
            String alice = ok("n0", "getent", "passwd", "alice").split(":")[2];
            assertTrue(Integer.parseInt(alice) >= 200000, alice);
            String asAlice = ok(
                    "n0",
                    "runuser",
                    "-u",
                    "alice",
                    "--",
                    "srun",
                    "-N1",
                    "-w",
                    "n2",
                    "-t",
                    "1",
                    "--container-image=/shared/tiny.sqsh",
                    "sh",
                    "-c",
                    "cat /etc/os-release; id -u; ls /shared/tiny.sqsh");
            assertTrue(asAlice.contains("NAME=\"slurmlet tiny\"") && asAlice.contains("\n" + alice + "\n"), asAlice);
            assertEquals(
                    "drwx------ " + alice,
                    ok("n2", "stat", "-c", "%A %u", "/var/lib/enroot/data/user-" + alice)
                            .strip(),
                    "the prolog made alice's enroot folder, hers alone");
            // For bench/README.md: five of each, one after the other, in this run; medians.
            double[] plain = new double[5];
            double[] tiny = new double[5];
            for (int i = 0; i < plain.length; i++) {
                long start = System.nanoTime();
                ok("n0", "srun", "-N1", "-w", "n1", "-t", "1", "true");
                plain[i] = (System.nanoTime() - start) / 1e9;
                start = System.nanoTime();
                ok("n0", "srun", "-N1", "-w", "n1", "-t", "1", "--container-image=/shared/tiny.sqsh", "true");
                tiny[i] = (System.nanoTime() - start) / 1e9;
            }
            // A 250 MB image (incompressible), created once under a name and then reused: what a real image costs.
            ok(
                    "n0",
                    "sh",
                    "-c",
                    "set -e; rm -rf /tmp/big; mkdir -p /tmp/big/bin /tmp/big/data; cp /shared/tiny.sqsh /tmp/tiny.sqsh; "
                            + "unsquashfs -q -f -d /tmp/big /tmp/tiny.sqsh >/dev/null; head -c 250M /dev/urandom >/tmp/big/data/blob; "
                            + "mksquashfs /tmp/big /shared/big.sqsh -noappend -noI -noD -noF -noX -quiet >/dev/null; rm -rf /tmp/big /tmp/tiny.sqsh");
            long start = System.nanoTime();
            String created = ok(
                    "n0",
                    "srun",
                    "-N1",
                    "-w",
                    "n1",
                    "-t",
                    "2",
                    "--container-image=/shared/big.sqsh",
                    "--container-name=big",
                    "sh",
                    "-c",
                    "wc -c </data/blob");
            double bigFirst = (System.nanoTime() - start) / 1e9;
            assertEquals(Long.toString(250L << 20), created.strip(), "the big image's file, inside the container");
            double[] bigAgain = new double[3];
            for (int i = 0; i < bigAgain.length; i++) {
                start = System.nanoTime();
                ok(
                        "n0",
                        "srun",
                        "-N1",
                        "-w",
                        "n1",
                        "-t",
                        "1",
                        "--container-image=/shared/big.sqsh",
                        "--container-name=big",
                        "true");
                bigAgain[i] = (System.nanoTime() - start) / 1e9;
            }
            System.out.printf(
                    "ClusterIT %s containers: srun medians of 5: plain %.2f s, tiny image %.2f s (%.1fx); 250 MB image: "
                            + "first (named) %.2f s, reused by name median of 3 %.2f s%n",
                    SUITE, median(plain), median(tiny), median(tiny) / median(plain), bigFirst, median(bigAgain));

            // Its output goes to n1's own /tmp: root's writes to /shared are squashed by the export. The image named in
            // the
            // script, as users write it (#SBATCH --container-image=…).
            ok(
                    "n0",
                    "sh",
                    "-c",
                    "printf '#!/bin/sh\\n#SBATCH --container-image=/shared/tiny.sqsh\\ncat /etc/os-release\\n' >/tmp/container-batch.sh");
            String batch = ok(
                            "n0",
                            "sbatch",
                            "--parsable",
                            "-w",
                            "n1",
                            "-o",
                            "/tmp/container-batch-%j.out",
                            "/tmp/container-batch.sh")
                    .strip();
            // squeue forgets a job as it ends; slurmctld's record says how it ended.
            java.util.function.Supplier<String> ended = () -> {
                try {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("JobState=(\\S+)")
                            .matcher(ok("n0", "scontrol", "show", "job", batch));
                    return m.find() ? m.group(1) : "";
                } catch (Exception | AssertionError e) {
                    return "";
                }
            };
            await(
                    Duration.ofSeconds(60),
                    "the container batch job ends",
                    () -> List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")
                            .contains(ended.get()));
            assertEquals("COMPLETED", ended.get(), ok("n0", "scontrol", "show", "job", batch));
            assertTrue(
                    ok("n1", "cat", "/tmp/container-batch-" + batch + ".out").contains("NAME=\"slurmlet tiny\""),
                    "sbatch's script ran in the container");
        }
    }

    /**
     * Containers under jobs, the other ways: a machine that comes into the Slurm cluster without enroot
     * or pyxis (n3, out of the nodes, its packages, plugin and fetched files removed, then added back)
     * takes pyxis and the prolog out of every machine's files until it has built its own (a
     * reconfigure each way, no job hurt, a container job among them); then {@code containers=false}
     * under jobs, a container job among them, takes pyxis out (a reconfigure), every job ends well,
     * plain jobs run, and nothing installed is removed.
     */
    @Test
    @Order(29)
    void aMachineJoiningWithoutEnrootHoldsPyxisBackAndContainersOffUnderJobsHurtsNoJob() throws Exception {
        handTheFilesToTheLeaderAndStopTheMirror();
        joiningWithoutEnrootThenOff();
    }

    /**
     * GPU machines: n2 stands in for one (a stand-in nvidia-smi naming two GPUs, and /dev/nvidia0 and 1
     * made as NVIDIA's driver numbers them, with no driver behind them), so its facts show GPUs and
     * Slurm gets them as gres. With containers on, n2 alone installs nvidia-container-cli (the
     * mirror's stand-in packages, digests checked) and pyxis waits for it there; n1 has none and
     * keeps telling containers there is no GPU. Where gres.conf names the device files (22.05), a job
     * on n2 asking for one GPU, with NVIDIA_VISIBLE_DEVICES=all as a CUDA image sets it, has enroot's
     * hook call the CLI for the container, from inside the job's cgroup; where it autodetects (24.11
     * and later), slurmd asks the driver, which the stand-in lacks, and slurmctld refuses n2's GPUs.
     */
    @Test
    @Order(30)
    void onAGpuMachineAloneNvidiaContainerCliIsInstalledAndAGpuJobsContainerCallsIt() throws Exception {
        try (Mirror mirror = Mirror.serve(RUN.resolve("mirror"))) {
            ok("n2", "sh", "-c", """
                    set -e
                    for i in 0 1; do [ -e /dev/nvidia$i ] || mknod -m 0666 /dev/nvidia$i c 195 $i; done
                    [ -e /dev/nvidiactl ] || mknod -m 0666 /dev/nvidiactl c 195 255
                    printf '#!/bin/sh\n# a test stand-in: two GPUs\nprintf "NVIDIA H200\\nNVIDIA H200\\n"\n' >/usr/local/bin/nvidia-smi
                    chmod 0755 /usr/local/bin/nvidia-smi
                    systemctl restart slurmlet-agent""");
            await(Duration.ofSeconds(120), "Slurm has n2's two GPUs", () -> {
                try {
                    // Each agent writes its own files: n2's gres.conf may come a moment after the controller's
                    // reconfigure.
                    return on("n0", "scontrol", "show", "node", "n2").out().contains("Gres=gpu:nvidia_h200:2")
                            && ok("n2", "cat", "/etc/slurm/gres.conf").contains("\nNodeName=n2 ");
                } catch (Exception | AssertionError e) {
                    return false;
                }
            });
            Instant since = Instant.now();
            long set = System.nanoTime();
            ok("n0", "ctl", "slurm", "containers", "on");
            await(
                    Duration.ofSeconds(120),
                    "every machine's plugstack.conf names pyxis again, n2 with its nvidia-container-cli",
                    ClusterRunsJobsInContainersIT::pyxisEverywhere);
            double loaded = (System.nanoTime() - set) / 1e9;
            assertTrue(
                    ok("n2", "dpkg-query", "-W", "libnvidia-container-tools").contains("1.17.8-1"),
                    "n2 has GPUs: the CLI is installed");
            assertEquals(
                    "cli-version: 1.17.8",
                    ok("n2", "nvidia-container-cli", "--version")
                            .lines()
                            .findFirst()
                            .orElse(""));
            for (String node : List.of("n0", "n1", "n3")) {
                // dpkg-query -W also answers 0 for a package dpkg only knows of (bookworm's dpkg: "un", enroot suggests
                // it).
                Proc.Result cli = on(
                        node,
                        "sh",
                        "-c",
                        "dpkg-query -W -f='${db:Status-Abbrev}${Version}' libnvidia-container-tools 2>&1; "
                                + "echo; test ! -e /usr/bin/nvidia-container-cli");
                assertTrue(cli.exit() == 0 && !cli.out().startsWith("ii"), node + " has no GPU: no CLI: " + cli);
                assertTrue(
                        ok(node, "cat", "/etc/enroot/environ.d/50-slurmlet-gpus.env")
                                .contains("NVIDIA_VISIBLE_DEVICES=void"),
                        node);
            }
            assertNotEquals(
                    0,
                    on("n2", "test", "-e", "/etc/enroot/environ.d/50-slurmlet-gpus.env")
                            .exit(),
                    "n2's containers get GPUs");
            String status = ok("n0", "ctl", "slurm", "containers", "status");
            assertTrue(status.lines().anyMatch(l -> l.matches("n2 .* 2 +1\\.17\\.8 +yes")), status);
            assertTrue(status.lines().anyMatch(l -> l.matches("n1 .* 0 +not needed +yes")), status);

            String gres = ok("n2", "cat", "/etc/slurm/gres.conf");
            if (gres.contains("NodeName=n2 AutoDetect=nvidia")) {
                // 24.11 and later: slurmd asks NVIDIA's driver for the GPUs, and the stand-in has none behind its
                // devices.
                // slurmctld refuses the count (0 < 2) and drains n2, as it would a GPU machine whose driver is gone.
                await(Duration.ofSeconds(60), "slurmctld refuses n2's GPU count", () -> {
                    try {
                        return ok("n0", "scontrol", "show", "node", "n2")
                                .contains("gres/gpu count reported lower than configured (0 < 2)");
                    } catch (Exception | AssertionError e) {
                        return false;
                    }
                });
                System.out.printf(
                        "ClusterIT %s containers: n2 (two stand-in GPUs) alone installed nvidia-container-cli, pyxis back %.1f s "
                                + "after containers on; no GPU job: gres.conf autodetects, and the stand-in has no driver%n",
                        SUITE, loaded);
                assertEquals("", slurmctldFatals(since));
                return;
            }
            assertTrue(gres.contains("NodeName=n2 Name=gpu Type=nvidia_h200 File=/dev/nvidia[0-1]"), gres);
            String job = ok(
                    "n0",
                    "env",
                    "NVIDIA_VISIBLE_DEVICES=all",
                    "srun",
                    "-N1",
                    "-w",
                    "n2",
                    "-t",
                    "1",
                    "--gres=gpu:1",
                    "--container-image=/shared/tiny.sqsh",
                    "sh",
                    "-c",
                    "echo in-container; cat /etc/os-release");
            assertTrue(job.contains("in-container") && job.contains("NAME=\"slurmlet tiny\""), job);
            String log = ok("n2", "cat", "/var/log/nvidia-container-cli-stand-in.log");
            assertTrue(log.contains(" configure ") && log.contains("--device=all") && log.contains("--utility"), log);
            assertTrue(log.contains("CUDA_VISIBLE_DEVICES=0 "), "the job's one GPU: " + log);
            // From inside the job's cgroup (ConstrainDevices): its one GPU opens as far as the missing driver, the
            // other not at all.
            long allowed = log.lines()
                    .filter(l -> l.matches("/dev/nvidia[01]: No such device or address"))
                    .count();
            long denied = log.lines()
                    .filter(l -> l.matches("/dev/nvidia[01]: Operation not permitted"))
                    .count();
            assertEquals(
                    List.of(1L, 1L),
                    List.of(allowed, denied),
                    "the CLI ran with the job's one GPU and not the other: " + log);
            System.out.printf(
                    "ClusterIT %s containers: n2 (two stand-in GPUs) alone installed nvidia-container-cli, pyxis back %.1f s "
                            + "after containers on; a GPU job's container called it:%n%s",
                    SUITE, loaded, log);
            assertEquals("", slurmctldFatals(since));
        }
    }

    /**
     * A site whose machines reach no mirror: the admin hands enroot's packages and pyxis's source to
     * the leader ({@code ctl slurm containers import}, with the digests sha256sum printed, which the
     * test table also pins), and the mirror is gone from here on: n3, which comes back without enroot
     * in the next step, can only fetch them from the leader.
     */
    private static void handTheFilesToTheLeaderAndStopTheMirror() throws Exception {
        List<String> files = new ArrayList<>();
        com.fasterxml.jackson.databind.JsonNode table = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(RUN.resolve("mirror").resolve("table.json").toFile());
        for (com.fasterxml.jackson.databind.JsonNode row : table.get("artifacts")) {
            if (List.of("enroot", "enroot+caps", "pyxis")
                    .contains(row.get("name").asText())) {
                files.add(row.get("file").asText());
            }
        }
        assertEquals(3, files.size(), table.toString());
        try (Mirror mirror = Mirror.serve(RUN.resolve("mirror"))) { // cell 28's files: what the admin downloaded
            for (String f : files) {
                ok("n0", "curl", "-fsS", "--create-dirs", "-o", "/root/import/" + f, mirror.url() + f);
            }
        }
        ok("n0", "sh", "-c", "cd /root/import && sha256sum * >SHA256SUMS");
        List<String> argv = new ArrayList<>(List.of(
                "sh", "-c", "cd /root/import && ctl slurm containers import --sums SHA256SUMS \"$@\"", "import"));
        argv.addAll(files);
        String imported = ok("n0", argv.toArray(String[]::new));
        for (String f : files) {
            assertTrue(imported.contains("(" + f + ", "), imported);
        }
        String status = ok("n0", "ctl", "slurm", "containers", "status");
        assertTrue(
                status.contains("the leader holds (ctl slurm containers import), and machines fetch from it:"), status);
        // A file handed over that is not the one the table pins (its size, its first byte changed): refused, named with
        // both
        // digests; nothing else sent.
        ok(
                "n0",
                "sh",
                "-c",
                "cd /root/import && cp %s /tmp/%s && printf x | dd of=/tmp/%s bs=1 count=1 conv=notrunc status=none"
                        .formatted(files.get(0), files.get(0), files.get(0)));
        Proc.Result wrong = on("n0", "ctl", "slurm", "containers", "import", "/tmp/" + files.get(0));
        assertNotEquals(0, wrong.exit(), wrong.toString());
        assertTrue(
                wrong.toString().contains(files.get(0) + " has sha256 ")
                        && wrong.toString().contains(", and the leader's table pins "),
                wrong.toString());
        System.out.printf(
                "ClusterIT %s containers: enroot's packages and pyxis's source handed to the leader; the mirror is gone%n",
                SUITE);
    }

    private static void joiningWithoutEnrootThenOff() throws Exception {
        assertTrue(ok("n1", "cat", "/etc/slurm/plugstack.conf").contains("spank_pyxis"), "cell 28 left pyxis loaded");
        ok("n0", "ctl", "slurm", "set", "nodes=n1,n2");
        await(Duration.ofSeconds(90), "n3 leaves Slurm's nodes", () -> {
            try {
                return !sinfo().containsKey("n3") && unitState("n3", "slurmd").startsWith("inactive/");
            } catch (Exception | AssertionError e) {
                return false;
            }
        });
        ok(
                "n3",
                "sh",
                "-c",
                "set -e; apt-get purge -y -q enroot+caps enroot >/dev/null; "
                        + "rm -rf /usr/local/lib/slurm/spank_pyxis.so /usr/local/lib/slurmlet/pyxis.json /var/lib/slurmlet/containers");
        assertFalse(on("n3", "dpkg-query", "-W", "enroot").exit() == 0);

        String rejoin = "rejoin-without-enroot";
        // Two CPUs a node: the cell's heartbeat and sleep on n1, the container job on n2.
        String container = containerJob("n2", rejoin, 40);
        long set = System.nanoTime();
        Instant setAt = Instant.now();
        double[] held = new double[1];
        underJobs(
                rejoin,
                List.of("n1"),
                List.of("n1", "n2"),
                (before, after) -> {
                    // Each machine takes pyxis out until n3 has it, then back in: reconfigures, whatever the node set
                    // needs.
                    await(
                            Duration.ofSeconds(150),
                            "n3 builds pyxis and every machine's plugstack.conf names it again",
                            ClusterRunsJobsInContainersIT::pyxisEverywhere);
                    held[0] = (System.nanoTime() - set) / 1e9;
                },
                30,
                "nodes=n1,n2,n3");
        String written = ok(
                "n1",
                "sh",
                "-c",
                "journalctl -u slurmlet-agent -o cat --no-pager --since @%d | grep -E '\\] slurm: .*plugstack.conf' || true"
                        .formatted(setAt.getEpochSecond()));
        assertTrue(
                written.strip().lines().count() >= 2,
                "n1 wrote plugstack.conf without pyxis, then with it again: " + written);
        assertEquals(
                "4.1.2",
                ok("n3", "enroot", "version").strip(),
                "n3 installed enroot again, from the leader: no mirror serves");
        String fetched = ok(
                "n3",
                "sh",
                "-c",
                "journalctl -u slurmlet-agent -o cat --no-pager --since @%d | grep -E 'containers: .*installed enroot' || true"
                        .formatted(setAt.getEpochSecond()));
        assertFalse(fetched.isBlank(), "n3's agent installed enroot in this cell");
        awaitContainerJob(rejoin, container);
        System.out.printf(
                "ClusterIT %s matrix: %s: pyxis held out of plugstack.conf until n3 had built it, back %.1f s after the set; "
                        + "a container job and 2 others ran on%n",
                SUITE, rejoin, held[0]);

        // A site's own Prolog beside containers: slurmlet's prolog runs it after its own (Slurm 22.05 runs one
        // program).
        String siteProlog = "site-prolog";
        for (String node : NODES) {
            ok(
                    node,
                    "sh",
                    "-c",
                    "printf '#!/bin/sh\\necho \"job $SLURM_JOB_ID uid $SLURM_JOB_UID\" >>/var/log/site-prolog.log\\n' "
                            + ">/usr/local/sbin/site-prolog && chmod 0755 /usr/local/sbin/site-prolog");
        }
        underJobs(
                siteProlog,
                List.of("n1"),
                List.of("n1", "n2"),
                (before, after) -> assertEquals(before, after, "a reconfigure: no daemon restarted"),
                "slurm_conf.Prolog=/usr/local/sbin/site-prolog");
        for (String node : NODES) {
            String conf = ok(node, "cat", "/etc/slurm/slurm.conf");
            assertTrue(
                    conf.contains("\nProlog=/usr/local/lib/slurmlet/prolog\n")
                            && conf.contains("\n# slurmlet-site-prolog: /usr/local/sbin/site-prolog\n")
                            && !conf.contains("Prolog=/usr/local/sbin/site-prolog"),
                    node + ":\n" + conf);
        }
        String aliceUid = ok("n0", "getent", "passwd", "alice").split(":")[2];
        String asUser = ok(
                        "n0",
                        "runuser",
                        "-u",
                        "alice",
                        "--",
                        "srun",
                        "-N1",
                        "-w",
                        "n2",
                        "-t",
                        "1",
                        "--container-image=/shared/tiny.sqsh",
                        "sh",
                        "-c",
                        "echo $SLURM_JOB_ID; id -u")
                .strip();
        String jobId = asUser.lines().findFirst().orElse("");
        assertTrue(asUser.endsWith("\n" + aliceUid), asUser);
        assertTrue(
                ok("n2", "cat", "/var/log/site-prolog.log").contains("job " + jobId + " uid " + aliceUid + "\n"),
                "the site's Prolog ran for alice's container job, after slurmlet's made her folders");
        System.out.printf(
                "ClusterIT %s matrix: %s: the site's Prolog runs from slurmlet's beside containers; a reconfigure%n",
                SUITE, siteProlog);

        String off = "containers-off";
        String running = containerJob("n2", off, 30);
        underJobs(
                off,
                List.of("n1"),
                List.of("n1", "n2"),
                (before, after) -> assertEquals(before, after, "a reconfigure: no daemon restarted"),
                "containers=false",
                "slurm_conf.Prolog=");
        for (String node : NODES) {
            String plugstack = ok(node, "cat", "/etc/slurm/plugstack.conf");
            assertFalse(plugstack.contains("spank_pyxis"), node + ": " + plugstack);
            assertFalse(ok(node, "cat", "/etc/slurm/slurm.conf").contains("Prolog="), node);
            assertEquals("4.1.2", ok(node, "enroot", "version").strip(), node + ": what is installed stays");
            assertEquals(
                    0,
                    on(node, "test", "-f", "/usr/local/lib/slurm/spank_pyxis.so")
                            .exit(),
                    node + ": the plugin stays");
        }
        awaitContainerJob(off, running);
        Proc.Result refused =
                on("n0", "srun", "-N1", "-w", "n1", "-t", "1", "--container-image=/shared/tiny.sqsh", "true");
        assertNotEquals(0, refused.exit(), "without pyxis srun has no --container-image: " + refused);
        assertEquals(
                "n1", ok("n0", "srun", "-N1", "-w", "n1", "-t", "1", "hostname").strip(), "plain jobs run");
    }

    /** A batch job of {@code seconds} in the tiny image on {@code node}, running (its output in node's /tmp). */
    static String containerJob(String node, String cell, int seconds) throws Exception {
        String job = ok(
                        "n0",
                        "sbatch",
                        "--parsable",
                        "-w",
                        node,
                        "-o",
                        "/tmp/" + cell + "-%j.out",
                        "--container-image=/shared/tiny.sqsh",
                        "--wrap",
                        "sleep %d; cat /etc/os-release".formatted(seconds))
                .strip();
        await(
                Duration.ofSeconds(60),
                cell + ": container job " + job + " runs",
                () -> jobState(job).equals("RUNNING"));
        return job;
    }

    /** Waits for {@link #containerJob} to end, and checks it ended well, in its container. */
    static void awaitContainerJob(String cell, String job) throws Exception {
        await(Duration.ofSeconds(90), cell + ": container job " + job + " ends", () -> {
            try {
                return !on("n0", "scontrol", "show", "job", job)
                        .out()
                        .matches("(?s).*JobState=(PENDING|RUNNING|COMPLETING|CONFIGURING) .*");
            } catch (Exception e) {
                return false;
            }
        });
        String shown = ok("n0", "scontrol", "show", "job", job);
        assertTrue(
                shown.contains("JobState=COMPLETED")
                        && shown.contains(" ExitCode=0:0")
                        && shown.contains(" Restarts=0 "),
                cell + ": container job " + job + "\n" + shown);
        String node = shown.replaceFirst("(?s).*\\bNodeList=(\\S+).*", "$1");
        assertTrue(
                ok(node, "cat", "/tmp/" + cell + "-" + job + ".out").contains("NAME=\"slurmlet tiny\""),
                cell + ": it ran in the container");
    }

    /** Whether every machine's plugstack.conf names pyxis (required). */
    static boolean pyxisEverywhere() {
        return NODES.stream().allMatch(ClusterRunsJobsInContainersIT::namesPyxis);
    }

    /** Whether {@code node}'s plugstack.conf requires pyxis; false where it cannot be read. */
    static boolean namesPyxis(String node) {
        try {
            return ok(node, "cat", "/etc/slurm/plugstack.conf")
                    .contains("\nrequired /usr/local/lib/slurm/spank_pyxis.so\n");
        } catch (Exception | AssertionError e) {
            return false;
        }
    }

    /** An HTTP server for the cluster's machines, on the bridge of its hub namespace (10.77.0.2:8080), serving one folder. */
    static final class Mirror implements AutoCloseable {
        private final Process server;

        private Mirror(Process server) {
            this.server = server;
        }

        static Mirror serve(Path folder) throws Exception {
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
            String hub = prefix + "hub";
            if (!Proc.run(List.of("ip", "-n", hub, "addr", "show", "dev", prefix + "br"), Map.of(), 10)
                    .out()
                    .contains("10.77.0.2/24")) {
                Proc.Result r = Proc.run(
                        List.of("ip", "-n", hub, "addr", "add", "10.77.0.2/24", "dev", prefix + "br"), Map.of(), 10);
                assertEquals(0, r.exit(), r.toString());
            }
            Process server = new ProcessBuilder(
                            "nsenter",
                            "--net=/run/netns/" + hub,
                            "python3",
                            "-m",
                            "http.server",
                            "8080",
                            "--bind",
                            "10.77.0.2",
                            "--directory",
                            folder.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(RUN.resolve("mirror.log").toFile())
                    .start();
            Mirror mirror = new Mirror(server);
            await(Duration.ofSeconds(20), "the mirror answers", () -> {
                try {
                    return on("n1", "curl", "-fsS", "-o", "/dev/null", mirror.url() + "table.json")
                                    .exit()
                            == 0;
                } catch (Exception e) {
                    return false;
                }
            });
            return mirror;
        }

        String url() {
            return "http://10.77.0.2:8080/";
        }

        @Override
        public void close() throws InterruptedException {
            server.destroy();
            server.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
