package io.slurmlet.agent.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainersStepTest {

    static final String MIRROR = "http://10.77.0.2:8080/";
    static final Artifact ENROOT = artifact("enroot", "4.1.2", "amd64", "deb", "enroot_4.1.2-1_amd64.deb", "a");
    static final Artifact CAPS = artifact("enroot+caps", "4.1.2", "amd64", "deb", "enroot+caps_4.1.2-1_amd64.deb", "b");
    static final Artifact ENROOT_ARM = artifact("enroot", "4.1.2", "arm64", "deb", "enroot_4.1.2-1_arm64.deb", "c");
    static final Artifact PYXIS = artifact("pyxis", "0.24.0", "all", "source", "pyxis-0.24.0.tar.gz", "d");
    static final Artifact NVIDIA_LIB =
            artifact("libnvidia-container1", "1.17.8", "amd64", "deb", "libnvidia-container1_1.17.8-1_amd64.deb", "e");
    static final Artifact NVIDIA_CLI = artifact(
            "libnvidia-container-tools", "1.17.8", "amd64", "deb", "libnvidia-container-tools_1.17.8-1_amd64.deb", "f");
    static final List<String> DPKG_QUERY =
            List.of("dpkg-query", "-W", "-f=${Package} ${db:Status-Status} ${Version}\\n", "enroot", "enroot+caps");
    static final List<String> DPKG_QUERY_GPUS = List.of(
            "dpkg-query",
            "-W",
            "-f=${Package} ${db:Status-Status} ${Version}\\n",
            "enroot",
            "enroot+caps",
            "libnvidia-container1",
            "libnvidia-container-tools");

    @TempDir
    Path state;

    final FakeFiles files = new FakeFiles();
    final FakeCommands commands = new FakeCommands();
    final List<Artifact> fetched = new ArrayList<>();
    Fetcher fetcher = a -> {
        fetched.add(a);
        return Path.of("/var/lib/slurmlet/containers/artifacts/" + a.sha256() + "-" + a.file());
    };

    static Artifact artifact(String name, String version, String arch, String format, String file, String digit) {
        return new Artifact(name, version, arch, format, file, digit.repeat(64), MIRROR + file);
    }

    static NodePlan plan(boolean gpus) {
        return NodePlan.of("n1", Set.of(Role.COMPUTE))
                .withContainers(new ContainersPlan(
                        true, List.of(ENROOT, CAPS, ENROOT_ARM, PYXIS, NVIDIA_LIB, NVIDIA_CLI), "/shared", gpus));
    }

    ContainersStep step() {
        return new ContainersStep(files, commands, fetcher, state.resolve("root"), state);
    }

    /** Slurm's slurm_version.h as Debian's libslurm-dev has it: the version as a number only. */
    void headers(String version) {
        int[] v = java.util.Arrays.stream(version.split("\\."))
                .mapToInt(Integer::parseInt)
                .toArray();
        files.put(
                at(ContainersStep.SLURM_VERSION_H),
                ("#ifndef _SLURM_VERSION_H_\n#define _SLURM_VERSION_H_\n\n#define SLURM_VERSION_NUMBER 0x%02x%02x%02x\n"
                                        .formatted(v[0], v[1], v[2])
                                + "\n#define SLURM_VERSION_NUM(a,b,c) (((a) << 16) + ((b) << 8) + (c))\n")
                        .getBytes(StandardCharsets.UTF_8),
                "rw-r--r--",
                "root",
                "root");
    }

    @BeforeEach
    void aDebianMachineWithSlurmAndNothingForContainers() throws IOException {
        headers("24.11.5");
        commands.answer(List.of("dpkg", "--print-architecture"), "amd64\n")
                .answer(DPKG_QUERY, new Commands.Result(1, "", "dpkg-query: no packages found matching enroot\n"))
                .answer(List.of("srun", "-V"), "slurm 24.11.5\n")
                .answerPrefix(List.of("install", "-d"), Commands.Result.ok(""))
                .answerPrefix(List.of("env", "DEBIAN_FRONTEND=noninteractive", "apt-get"), Commands.Result.ok(""))
                .answerPrefix(List.of("tar"), Commands.Result.ok(""))
                .answerPrefix(List.of("rm"), Commands.Result.ok(""))
                .answerPrefix(List.of("env"), ContainersStepTest::make);
    }

    /** make: the plugin appears in the build folder, as pyxis's Makefile leaves it. */
    static Commands.Result make(FakeCommands.Call call) {
        String dir = call.argv().get(call.argv().indexOf("-C") + 1);
        try {
            Files.write(
                    Path.of(dir).resolve("spank_pyxis.so"), "ELF pyxis for 24.11.5".getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return Commands.Result.ok("");
    }

    /** What a machine holds once the step's actions were done for real: the packages, the folders. */
    void asInstalled() throws IOException {
        commands.answer(DPKG_QUERY, "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\n");
        for (String folder : ContainersDiff.FOLDERS) {
            Path p = state.resolve("root").resolve(folder.substring(1));
            Files.createDirectories(p);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private Path at(String path) {
        return state.resolve("root").resolve(path.substring(1));
    }

    @Test
    void aFreshMachineGetsItsFoldersFilesEnrootOfItsArchitectureAndPyxisBuiltForItsOwnSlurmThenNothingMore()
            throws IOException {
        Outcome first = step().apply(plan(false));
        assertEquals(Outcome.Kind.CHANGED, first.kind(), first.detail());
        // Each file checked (fetched) before anything of it is installed; the arm64 package is not this machine's, and
        // nvidia-container-cli is only for machines with GPUs.
        // Every one of them first, then each again (from the fetcher's cache, checked again) as it is installed.
        assertEquals(List.of(ENROOT, CAPS, PYXIS, ENROOT, CAPS, PYXIS), fetched);
        assertTrue(
                first.detail()
                        .contains(
                                "checked enroot_4.1.2-1_amd64.deb, enroot+caps_4.1.2-1_amd64.deb, pyxis-0.24.0.tar.gz"),
                first.detail());
        List<List<String>> log = commands.log();
        assertTrue(
                log.contains(List.of(
                        "env",
                        "DEBIAN_FRONTEND=noninteractive",
                        "apt-get",
                        "install",
                        "-y",
                        "-q",
                        "--no-install-recommends",
                        "-o",
                        "Dpkg::Options::=--force-confold",
                        "/var/lib/slurmlet/containers/artifacts/" + "a".repeat(64) + "-enroot_4.1.2-1_amd64.deb",
                        "/var/lib/slurmlet/containers/artifacts/" + "b".repeat(64) + "-enroot+caps_4.1.2-1_amd64.deb")),
                log.toString());
        assertTrue(
                log.stream()
                        .anyMatch(argv -> argv.size() > 3
                                && argv.get(0).equals("env")
                                && argv.get(1).startsWith("CFLAGS=-ffile-prefix-map=")
                                && argv.contains("make")
                                && argv.get(argv.size() - 1).equals("spank_pyxis.so")
                                && argv.contains("nice")
                                && argv.subList(argv.indexOf("nice"), argv.indexOf("make"))
                                        .equals(List.of("nice", "-n", "19"))),
                log.toString());
        for (String folder : List.of("/run/enroot", "/usr/local/lib/slurm", "/etc/enroot/enroot.conf.d")) {
            assertTrue(
                    log.contains(List.of(
                            "install",
                            "-d",
                            "-m",
                            "0755",
                            "-o",
                            "root",
                            "-g",
                            "root",
                            at(folder).toString())),
                    log.toString());
        }
        String plugin = new String(
                files.stat(at(ContainerFacts.PYXIS_PLUGIN)).orElseThrow().content(), StandardCharsets.UTF_8);
        assertEquals("ELF pyxis for 24.11.5", plugin);
        String stamp = new String(
                files.stat(at(ContainersDiff.PYXIS_STAMP)).orElseThrow().content(), StandardCharsets.UTF_8);
        assertTrue(
                stamp.contains("\"slurm\":\"24.11.5\"")
                        && stamp.contains("\"source_sha256\":\"" + "d".repeat(64) + "\""),
                stamp);
        assertEquals(
                "rwxr-xr-x", files.stat(at(ContainerFacts.PROLOG)).orElseThrow().mode());
        assertTrue(text(ContainersDiff.ENROOT_CONF).contains("ENROOT_DATA_PATH /var/lib/enroot/data/user-$(id -u)"));
        assertEquals(
                "# written by slurmlet: the shared storage, at the same path in every container\n"
                        + "/shared /shared none x-create=dir,bind,rw,nosuid,nodev,private 0 -1\n",
                text(ContainersDiff.MOUNTS));
        assertTrue(
                text(ContainersDiff.GPU_ENVIRON).endsWith("NVIDIA_VISIBLE_DEVICES=void\n"),
                "no GPU here: containers are told so");
        // The build folder is removed.
        assertTrue(
                log.stream()
                        .anyMatch(argv -> argv.get(0).equals("rm")
                                && argv.get(argv.size() - 1).contains("pyxis-")),
                log.toString());

        asInstalled();
        commands.clearLog();
        fetched.clear();
        Outcome second = step().apply(plan(false));
        assertEquals(Outcome.Kind.UNCHANGED, second.kind(), second.detail());
        assertEquals("enroot 4.1.2 and pyxis 0.24.0 for Slurm 24.11.5 installed", second.detail());
        assertEquals(List.of(), fetched);
    }

    @Test
    void aFileWhoseDigestDiffersIsRefusedAndNothingIsInstalled() throws IOException {
        fetcher = a -> {
            throw new IOException(
                    "enroot_4.1.2-1_amd64.deb from %s has sha256 %s, and the leader's table pins %s: refused, nothing installed"
                            .formatted(a.url(), "f".repeat(64), a.sha256()));
        };
        Outcome outcome = step().apply(plan(false));
        assertEquals(Outcome.Kind.FAILED, outcome.kind(), outcome.detail());
        assertTrue(
                outcome.detail().contains("f".repeat(64)) && outcome.detail().contains("a".repeat(64)),
                outcome.detail());
        assertFalse(
                commands.log().stream().anyMatch(argv -> argv.contains("apt-get") || argv.contains("make")),
                commands.log().toString());
        assertTrue(files.stat(at(ContainerFacts.PYXIS_PLUGIN)).isEmpty());
    }

    /** A wrong pyxis source is found before enroot is installed: a digest that differs anywhere installs nothing at all. */
    @Test
    void aWrongPyxisSourceIsFoundBeforeEnrootIsInstalled() {
        Fetcher checked = fetcher;
        fetcher = a -> {
            if (a.equals(PYXIS)) {
                throw new IOException(
                        "pyxis-0.24.0.tar.gz from %s has sha256 %s, and the leader's table pins %s: refused, nothing installed"
                                .formatted(a.url(), "f".repeat(64), a.sha256()));
            }
            return checked.fetch(a);
        };
        Outcome outcome = step().apply(plan(false));
        assertEquals(Outcome.Kind.FAILED, outcome.kind(), outcome.detail());
        assertTrue(
                outcome.detail().contains("f".repeat(64)) && outcome.detail().contains("d".repeat(64)),
                outcome.detail());
        assertFalse(
                commands.log().stream().anyMatch(argv -> argv.contains("apt-get") || argv.contains("make")),
                commands.log().toString());
        assertTrue(files.stat(at(ContainerFacts.PYXIS_PLUGIN)).isEmpty());
    }

    @Test
    void anotherSlurmOnTheMachineBuildsPyxisAgainAndAPluginChangedBehindItsBackToo() throws IOException {
        step().apply(plan(false));
        asInstalled();
        commands.answer(List.of("srun", "-V"), "slurm 25.05.1\n");
        headers("25.05.1");
        fetched.clear();
        Outcome upgraded = step().apply(plan(false));
        assertEquals(Outcome.Kind.CHANGED, upgraded.kind(), upgraded.detail());
        assertEquals("built pyxis 0.24.0 for Slurm 25.05.1 into " + ContainerFacts.PYXIS_PLUGIN, upgraded.detail());
        assertEquals(List.of(PYXIS), fetched);

        files.put(
                at(ContainerFacts.PYXIS_PLUGIN),
                "someone else's".getBytes(StandardCharsets.UTF_8),
                "rw-r--r--",
                "root",
                "root");
        Outcome altered = step().apply(plan(false));
        assertEquals(Outcome.Kind.CHANGED, altered.kind(), altered.detail());
    }

    @Test
    void aMachineWithNoSlurmConfYetTakesItsSlurmVersionFromTheDaemonsSinceSrunNeedsAConfigurationEvenForItsVersion() {
        commands.answer(
                        List.of("srun", "-V"),
                        new Commands.Result(1, "", "srun: fatal: Could not establish a configuration source\n"))
                .answer(List.of("slurmd", "-V"), "slurm-wlm 24.11.5\n");
        Outcome outcome = step().apply(plan(false));
        assertEquals(Outcome.Kind.CHANGED, outcome.kind(), outcome.detail());
        assertTrue(outcome.detail().contains("built pyxis 0.24.0 for Slurm 24.11.5"), outcome.detail());
    }

    @Test
    void headersOfAnotherSlurmThanTheInstalledOneBuildNothingAndSaySo() throws IOException {
        headers("25.05.0");
        Outcome outcome = step().apply(plan(false));
        assertEquals(Outcome.Kind.FAILED, outcome.kind());
        assertTrue(
                outcome.detail()
                        .contains(
                                "Slurm's headers here are 25.05.0 and its commands 24.11.5: a pyxis built against them would "
                                        + "not load"),
                outcome.detail());
        assertFalse(
                commands.log().stream().anyMatch(argv -> argv.contains("make")),
                commands.log().toString());
        headers("24.11.7"); // a point release apart: Slurm loads a plugin of the same release
        assertEquals(Outcome.Kind.CHANGED, step().apply(plan(false)).kind());
    }

    @Test
    void aKeptFileWhoseModeChangedIsWrittenAgainAndAStampWithoutItsFieldsIsNoStamp() throws IOException {
        step().apply(plan(false));
        asInstalled();
        files.put(
                at(ContainerFacts.PROLOG),
                ContainersTexts.prolog().getBytes(StandardCharsets.UTF_8),
                "rw-r--r--",
                "root",
                "root");
        files.put(at(ContainersDiff.PYXIS_STAMP), "{}".getBytes(StandardCharsets.UTF_8), "rw-r--r--", "root", "root");
        fetched.clear();
        Outcome outcome = step().apply(plan(false));
        assertTrue(
                outcome.detail()
                        .startsWith("rewrote " + ContainerFacts.PROLOG + "; built pyxis 0.24.0 for Slurm 24.11.5"),
                outcome.detail());
        assertEquals(
                "rwxr-xr-x", files.stat(at(ContainerFacts.PROLOG)).orElseThrow().mode());
    }

    @Test
    void anRpmMachineHasNoDpkgAndTakesTheTablesRpms() {
        FakeCommands rpm = new FakeCommands()
                .notInstalled("dpkg")
                .answer(List.of("rpm", "--eval", "%{_arch}"), "x86_64\n")
                .answer(
                        List.of(
                                "rpm",
                                "-q",
                                "--qf",
                                "%{NAME} installed %{VERSION}-%{RELEASE}\\n",
                                "enroot",
                                "enroot+caps"),
                        new Commands.Result(1, "package enroot is not installed\n", ""))
                .answer(List.of("srun", "-V"), "slurm 24.11.5\n")
                .answerPrefix(List.of("install", "-d"), Commands.Result.ok(""))
                .answerPrefix(List.of("tar"), Commands.Result.ok(""))
                .answerPrefix(List.of("rm"), Commands.Result.ok(""))
                .answerPrefix(List.of("env"), Commands.Result.ok(""));
        Outcome outcome = new ContainersStep(files, rpm, fetcher, state.resolve("root"), state).apply(plan(false));
        assertEquals(Outcome.Kind.FAILED, outcome.kind(), outcome.detail());
        assertTrue(
                rpm.log().contains(List.of("rpm", "--eval", "%{_arch}")),
                rpm.log().toString());
        assertFalse(fetched.contains(ENROOT), "the table has no x86_64 rpm: no deb is taken for it");
        assertFalse(
                rpm.log().stream().anyMatch(argv -> argv.contains("dnf") || argv.contains("apt-get")),
                rpm.log().toString());
    }

    @Test
    void anRpmMachineInstallsTheTablesRpmsWithDnfAndTakesAReleaseOfTheirVersionForInstalled() throws IOException {
        Artifact enroot = artifact("enroot", "4.1.2", "x86_64", "rpm", "enroot-4.1.2-1.el8.x86_64.rpm", "7");
        Artifact caps = artifact("enroot+caps", "4.1.2", "x86_64", "rpm", "enroot+caps-4.1.2-1.el8.x86_64.rpm", "8");
        NodePlan plan = NodePlan.of("n1", Set.of(Role.COMPUTE))
                .withContainers(new ContainersPlan(true, List.of(ENROOT, CAPS, enroot, caps, PYXIS), "/shared", false));
        List<String> query =
                List.of("rpm", "-q", "--qf", "%{NAME} installed %{VERSION}-%{RELEASE}\\n", "enroot", "enroot+caps");
        FakeCommands rpm = new FakeCommands()
                .notInstalled("dpkg")
                .answer(List.of("rpm", "--eval", "%{_arch}"), "x86_64\n")
                .answer(
                        query,
                        new Commands.Result(
                                1, "package enroot is not installed\npackage enroot+caps is not installed\n", ""))
                .answer(List.of("srun", "-V"), "slurm 24.11.5\n")
                .answerPrefix(List.of("install", "-d"), Commands.Result.ok(""))
                .answerPrefix(List.of("dnf"), Commands.Result.ok(""))
                .answerPrefix(List.of("tar"), Commands.Result.ok(""))
                .answerPrefix(List.of("rm"), Commands.Result.ok(""))
                .answerPrefix(List.of("env"), ContainersStepTest::make);
        Outcome first = new ContainersStep(files, rpm, fetcher, state.resolve("root"), state).apply(plan);
        assertEquals(Outcome.Kind.CHANGED, first.kind(), first.detail());
        assertEquals(
                List.of(enroot, caps, PYXIS),
                fetched.subList(0, 3),
                "the rpms of this machine's architecture, never the debs");
        assertEquals(
                fetched.subList(0, 3), fetched.subList(3, 6), "each checked before any is installed, then as it is");
        assertTrue(
                rpm.log()
                        .contains(List.of(
                                "dnf",
                                "install",
                                "-y",
                                "--setopt=install_weak_deps=False",
                                "/var/lib/slurmlet/containers/artifacts/" + "7".repeat(64)
                                        + "-enroot-4.1.2-1.el8.x86_64.rpm",
                                "/var/lib/slurmlet/containers/artifacts/" + "8".repeat(64)
                                        + "-enroot+caps-4.1.2-1.el8.x86_64.rpm")),
                rpm.log().toString());
        assertFalse(
                rpm.log().stream().anyMatch(argv -> argv.contains("apt-get")),
                rpm.log().toString());

        rpm.answer(query, "enroot installed 4.1.2-1.el8\nenroot+caps installed 4.1.2-1.el8\n");
        for (String folder : ContainersDiff.FOLDERS) {
            Path p = state.resolve("root").resolve(folder.substring(1));
            Files.createDirectories(p);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        rpm.clearLog();
        fetched.clear();
        Outcome second = new ContainersStep(files, rpm, fetcher, state.resolve("root"), state).apply(plan);
        assertEquals(Outcome.Kind.UNCHANGED, second.kind(), second.detail());
        assertEquals(List.of(), fetched, "4.1.2-1.el8 is the table's 4.1.2");
    }

    @Test
    void aMachineWithGpusGetsNvidiaContainerCliCheckedAndInstalledAndLosesTheNoGpuLine() throws IOException {
        step().apply(plan(false));
        asInstalled();
        commands.answer(
                DPKG_QUERY_GPUS,
                new Commands.Result(
                        1,
                        "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\n",
                        "dpkg-query: no packages found matching libnvidia-container1\n"));
        fetched.clear();
        commands.clearLog();
        Outcome outcome = step().apply(plan(true));
        assertEquals(Outcome.Kind.CHANGED, outcome.kind(), outcome.detail());
        assertEquals(
                "removed " + ContainersDiff.GPU_ENVIRON
                        + "; installed nvidia-container-cli 1.17.8 (libnvidia-container1_1.17.8-1_amd64.deb "
                        + "sha256 eeeeeeeeeeee, libnvidia-container-tools_1.17.8-1_amd64.deb sha256 ffffffffffff)",
                outcome.detail());
        assertTrue(files.stat(at(ContainersDiff.GPU_ENVIRON)).isEmpty());
        assertEquals(List.of(NVIDIA_LIB, NVIDIA_CLI), fetched, "both checked before either is installed");
        assertTrue(
                commands.log()
                        .contains(List.of(
                                "env",
                                "DEBIAN_FRONTEND=noninteractive",
                                "apt-get",
                                "install",
                                "-y",
                                "-q",
                                "--no-install-recommends",
                                "-o",
                                "Dpkg::Options::=--force-confold",
                                "/var/lib/slurmlet/containers/artifacts/" + "e".repeat(64)
                                        + "-libnvidia-container1_1.17.8-1_amd64.deb",
                                "/var/lib/slurmlet/containers/artifacts/" + "f".repeat(64)
                                        + "-libnvidia-container-tools_1.17.8-1_amd64.deb")),
                commands.log().toString());

        commands.answer(
                DPKG_QUERY_GPUS,
                "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\nlibnvidia-container1 installed 1.17.8-1\n"
                        + "libnvidia-container-tools installed 1.17.8-1\n");
        Outcome again = step().apply(plan(true));
        assertEquals(Outcome.Kind.UNCHANGED, again.kind(), again.detail());
        assertEquals(
                "enroot 4.1.2 and pyxis 0.24.0 for Slurm 24.11.5 installed, nvidia-container-cli 1.17.8",
                again.detail());
    }

    @Test
    void aMachineWithGpusWhoseTableHasNoNvidiaContainerCliSaysWhatToAdd() {
        commands.answer(DPKG_QUERY_GPUS, new Commands.Result(1, "", "dpkg-query: no packages found matching enroot\n"));
        NodePlan gpus = NodePlan.of("n1", Set.of(Role.COMPUTE))
                .withContainers(new ContainersPlan(true, List.of(ENROOT, CAPS, PYXIS), "/shared", true));
        Outcome outcome = step().apply(gpus);
        assertEquals(Outcome.Kind.FAILED, outcome.kind(), outcome.detail());
        assertTrue(
                outcome.detail()
                        .contains(
                                "this machine has NVIDIA GPUs, and containers there need nvidia-container-cli: the artifact "
                                        + "table has no libnvidia-container1 and libnvidia-container-tools for amd64 deb: add them to the leader's table "
                                        + "(slurmlet.leader.containers.table)"),
                outcome.detail());
    }

    @Test
    void containersOffOnASlurmMachineLookAndChangeNothing() throws IOException {
        step().apply(plan(false));
        commands.answer(DPKG_QUERY_GPUS, "enroot installed 4.1.2-1\nenroot+caps installed 4.1.2-1\n");
        ContainersStep step = step();
        commands.clearLog();
        Outcome off = step.apply(NodePlan.of("n1", Set.of(Role.COMPUTE)));
        assertEquals(Outcome.Kind.UNCHANGED, off.kind());
        assertEquals(
                List.of(List.of("dpkg", "--print-architecture"), DPKG_QUERY_GPUS, List.of("srun", "-V")),
                commands.log(),
                "queries only, nvidia-container-cli's packages too (a machine with GPUs wants them once on)");
        assertTrue(files.stat(at(ContainerFacts.PYXIS_PLUGIN)).isPresent());
        var seen = step.reportInto(io.slurmlet.model.observed.Observed.NOTHING).containers();
        assertEquals(
                "amd64 deb 4.1.2-1",
                seen.arch() + " " + seen.format() + " " + seen.packages().get("enroot"));
        assertEquals(
                ContainersDiff.PATHS.stream().sorted().toList(),
                seen.files().keySet().stream().sorted().toList(),
                "every file the step keeps somewhere, for a dry run that turns them on");

        commands.clearLog();
        step.apply(NodePlan.of("n1", Set.of(Role.COMPUTE)));
        assertEquals(List.of(), commands.log(), "the look stands for the passes after it (the resync's)");

        commands.clearLog();
        step.apply(plan(false));
        assertEquals(
                List.of(DPKG_QUERY, List.of("srun", "-V")),
                commands.log().subList(0, 2),
                "turned on, the step looks afresh (the architecture once an agent's life)");
    }

    @Test
    void aMachineWithoutASlurmRoleIsNotLookedAt() throws IOException {
        Outcome none = step().apply(NodePlan.of("n1", Set.of()));
        assertEquals(Outcome.Kind.UNCHANGED, none.kind());
        assertEquals(List.of(), commands.log());
        assertEquals(
                null,
                step().reportInto(io.slurmlet.model.observed.Observed.NOTHING).containers());
    }

    @Test
    void aTableWithoutThisMachinesArchitectureSaysSoAndStillBuildsNothingItCannot() {
        commands.answer(List.of("dpkg", "--print-architecture"), "riscv64\n");
        Outcome outcome = step().apply(plan(false));
        assertEquals(Outcome.Kind.FAILED, outcome.kind());
        assertTrue(
                outcome.detail().startsWith("the artifact table has no enroot and enroot+caps for riscv64 deb"),
                outcome.detail());
        assertFalse(commands.log().stream().anyMatch(argv -> argv.contains("apt-get")));
    }

    @Test
    void theProlog() {
        String prolog = ContainersTexts.prolog();
        assertTrue(prolog.startsWith("#!/bin/sh\n"));
        assertTrue(prolog.contains("install -d -m 0700 -o \"$uid\" -g \"$gid\" \"$dir\" \\\n"), prolog);
        assertTrue(prolog.strip().endsWith("exit 0"), prolog);
    }

    /**
     * The prolog run by sh, as slurmd runs it (no search path), with a slurm.conf of its own: the
     * site's programs the comment names run after slurmlet's part, in order, a pattern for each file it
     * matches (none: nothing), the first that fails ending the prolog with its status; no comment: 0.
     */
    @Test
    void thePrologRunsTheSitesProgramsAfterItsOwnAndEndsAsTheyEnd(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path conf = dir.resolve("slurm.conf");
        Path script = dir.resolve("prolog");
        java.nio.file.Files.writeString(
                script, ContainersTexts.prolog().replace("/etc/slurm/slurm.conf", conf.toString()));
        Path log = dir.resolve("ran");
        Path d = java.nio.file.Files.createDirectories(dir.resolve("prolog.d"));
        for (String name : List.of("10-first", "20-second")) {
            Path p = java.nio.file.Files.writeString(
                    d.resolve(name), "#!/bin/sh\necho \"" + name + " $SLURM_JOB_ID\" >>" + log + "\n");
            p.toFile().setExecutable(true);
        }
        Path failing = java.nio.file.Files.writeString(
                dir.resolve("failing"), "#!/bin/sh\necho failing >>" + log + "\nexit 3\n");
        failing.toFile().setExecutable(true);
        java.util.function.Function<String, Integer> run = site -> {
            try {
                java.nio.file.Files.writeString(
                        conf,
                        "Prolog=/usr/local/lib/slurmlet/prolog\n"
                                + (site == null ? "" : "# slurmlet-site-prolog: " + site + "\n"));
                java.nio.file.Files.deleteIfExists(log);
                ProcessBuilder pb = new ProcessBuilder("sh", script.toString()).redirectErrorStream(true);
                pb.environment().clear();
                pb.environment().put("SLURM_JOB_ID", "42");
                Process p = pb.start();
                p.getInputStream().readAllBytes();
                return p.waitFor();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        assertEquals(0, run.apply(null));
        assertFalse(java.nio.file.Files.exists(log));
        assertEquals(0, run.apply(d + "/*," + dir.resolve("nothing.d") + "/*"));
        assertEquals("10-first 42\n20-second 42\n", java.nio.file.Files.readString(log));
        assertEquals(3, run.apply(failing + "," + d + "/*"));
        assertEquals("failing\n", java.nio.file.Files.readString(log), "the first that fails ends it");
        assertEquals(
                127, run.apply(dir.resolve("missing").toString()), "a program that is not there fails it, as in Slurm");
    }

    private String text(String path) throws IOException {
        return new String(files.stat(at(path)).orElseThrow().content(), StandardCharsets.UTF_8);
    }
}
