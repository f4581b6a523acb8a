package io.slurmlet.agent.containers;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.plan.Artifact;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jobs in containers on a Slurm machine: enroot installed from its pinned packages, pyxis built
 * from its pinned source against this machine's own Slurm (Debian's libslurm-dev, RHEL's
 * slurm-devel) and installed where plugstack.conf names it, enroot set up for many users (each
 * user's folders under root-owned parents, made by slurmlet's Slurm prolog before each job), the
 * shared path in every container, and no GPUs offered to containers where the machine has none.
 * Every file fetched is checked against the plan's sha256 before anything is installed. Whether
 * Slurm loads pyxis is the leader's: it names pyxis in plugstack.conf only once every machine
 * reports it ({@link ContainerFacts}). Nothing installed is ever removed.
 */
public final class ContainersStep extends Reconciler<ContainersDiff.Wanted, ContainersDiff.Seen> implements Reports {

    static final Duration QUERY = Duration.ofSeconds(30);
    static final Duration INSTALL = Duration.ofMinutes(10);
    static final Duration BUILD = Duration.ofMinutes(5);

    private final Files files;
    private final Commands commands;
    private final Fetcher fetcher;
    private final Path root;
    private final Path buildDir;

    /**
     * @param root     where the machine's files are (/ but in tests)
     * @param stateDir the agent's state: pyxis is built in a folder of it
     * @param fetcher  fetches and checks the pinned files
     */
    public ContainersStep(Files files, Commands commands, Fetcher fetcher, Path root, Path stateDir) {
        super("containers", ContainersDiff::desired, ContainersDiff::diff);
        this.files = files;
        this.commands = commands;
        this.fetcher = fetcher;
        this.root = root;
        this.buildDir = stateDir.resolve("containers").resolve("build");
    }

    /**
     * On a machine: files fetched into the agent's state, each of the size its plan pins (never over
     * {@link Fetcher#CEILING}), over HTTP from the mirror or, those the leader holds, from the leader
     * this machine follows.
     */
    public static ContainersStep onMachine(
            Files files, Commands commands, Path root, Path stateDir, Fetcher.FromLeader leader) {
        return new ContainersStep(
                files,
                commands,
                Fetcher.of(
                        stateDir.resolve("containers").resolve("artifacts"),
                        Fetcher.CEILING,
                        Duration.ofMinutes(10),
                        leader),
                root,
                stateDir);
    }

    /** What the step sees where it does not look: a machine without a Slurm role. */
    private static final ContainersDiff.Seen NOTHING =
            new ContainersDiff.Seen("", "", Map.of(), "", "", Optional.empty(), "", Map.of(), List.of());

    /** The machine's architecture and package format, once looked at: they do not change under a running agent. */
    private volatile List<String> archAndFormat = List.of();

    /**
     * How long a look with containers off stands for the passes after it: it changes nothing and only
     * feeds the leader's dry runs, so the resync's passes (a minute apart) do not run its queries again.
     */
    static final Duration OFF_LOOK_STANDS = Duration.ofMinutes(10);

    /** The last look with containers off, and when (System.nanoTime); null after one with them on. */
    private record OffLook(ContainersDiff.Seen seen, long at) {}

    private volatile OffLook offLook;

    /**
     * What the machine holds for jobs in containers, on every Slurm machine, containers on or off
     * (off, nothing is changed: what is seen is for the leader's dry runs that turn them on, and a
     * look stands for {@link #OFF_LOOK_STANDS}). Every package of {@link ContainersDiff#NVIDIA} is
     * looked at where the plan wants them, and where containers are off (a machine with GPUs wants
     * them once they are on).
     */
    @Override
    public ContainersDiff.Seen observe(ContainersDiff.Wanted wanted) throws IOException, SystemException {
        if (!wanted.look()) {
            return NOTHING;
        }
        if (wanted.install()) {
            offLook = null;
            return look(wanted);
        }
        OffLook last = offLook;
        long now = System.nanoTime();
        if (last != null && now - last.at() < OFF_LOOK_STANDS.toNanos()) {
            return last.seen();
        }
        ContainersDiff.Seen seen = look(wanted);
        offLook = new OffLook(seen, now);
        return seen;
    }

    private ContainersDiff.Seen look(ContainersDiff.Wanted wanted) throws IOException, SystemException {
        List<String> machine = archAndFormat();
        String arch = machine.get(0);
        String format = machine.get(1);
        Map<String, String> enroot = installed(format.equals("deb"), wanted.gpus() || !wanted.install());
        Map<String, String> seen = new HashMap<>();
        for (String path : ContainersDiff.PATHS) {
            seen.put(
                    path,
                    files.stat(at(path))
                            .map(f -> ManagedFiles.sha256(f.content()) + " " + f.mode() + " " + f.owner() + ":"
                                    + f.group())
                            .orElse(""));
        }
        Optional<ContainersDiff.Stamp> stamp =
                files.stat(at(ContainersDiff.PYXIS_STAMP)).flatMap(f -> ContainersDiff.Stamp.parse(f.content()));
        String plugin = files.stat(at(ContainerFacts.PYXIS_PLUGIN))
                .map(f -> ManagedFiles.sha256(f.content()))
                .orElse("");
        return new ContainersDiff.Seen(
                arch, format, enroot, slurmVersion(), headers(), stamp, plugin, seen, wrongFolders());
    }

    /** The machine's architecture, as its package manager names it, and its package format (deb or rpm). */
    private List<String> archAndFormat() throws SystemException {
        List<String> known = archAndFormat;
        if (!known.isEmpty()) {
            return known;
        }
        Commands.Result dpkg = null;
        try {
            dpkg = commands.run(List.of("dpkg", "--print-architecture"), QUERY);
        } catch (CommandFailed e) {
            if (!e.notInstalled()) {
                throw e;
            }
        }
        boolean deb = dpkg != null && dpkg.succeeded(); // no dpkg: an RPM machine
        String arch = (deb ? dpkg : commands.runChecked(List.of("rpm", "--eval", "%{_arch}"), QUERY))
                .stdout()
                .strip();
        known = List.of(arch, deb ? "deb" : "rpm");
        archAndFormat = known;
        return known;
    }

    static final String SLURM_VERSION_H = "/usr/include/slurm/slurm_version.h";
    /** As Slurm's headers say their version: {@code #define SLURM_VERSION_NUMBER 0x180b05} is 24.11.5. */
    private static final Pattern VERSION_NUMBER = Pattern.compile(
            "(?m)^#define\\s+SLURM_VERSION_NUMBER\\s+0x([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})\\s*$");

    /** The version of the Slurm headers installed (what pyxis is built against), as 24.11.5; "" where there are none. */
    private String headers() throws IOException {
        return files.stat(at(SLURM_VERSION_H))
                .map(f -> VERSION_NUMBER.matcher(new String(f.content(), StandardCharsets.UTF_8)))
                .filter(Matcher::find)
                .map(m -> "%d.%02d.%d"
                        .formatted(
                                Integer.parseInt(m.group(1), 16),
                                Integer.parseInt(m.group(2), 16),
                                Integer.parseInt(m.group(3), 16)))
                .orElse("");
    }

    /** The installed versions of enroot's packages, and of nvidia-container-cli's where the plan wants them. */
    private Map<String, String> installed(boolean deb, boolean gpus) throws SystemException {
        Map<String, String> versions = new HashMap<>();
        List<String> argv = new ArrayList<>(
                deb
                        ? List.of("dpkg-query", "-W", "-f=${Package} ${db:Status-Status} ${Version}\\n")
                        : List.of("rpm", "-q", "--qf", "%{NAME} installed %{VERSION}-%{RELEASE}\\n"));
        argv.addAll(ContainersDiff.ENROOT);
        if (gpus) {
            argv.addAll(ContainersDiff.NVIDIA);
        }
        // Both exit 1 when a package is not installed: that one is simply missing.
        for (String line : commands.run(argv, QUERY).stdout().split("\n")) {
            String[] words = line.strip().split(" ");
            if (words.length == 3 && words[1].equals("installed")) {
                versions.put(words[0], words[2]);
            }
        }
        return versions;
    }

    /**
     * The Slurm version of this machine's commands (srun, with the libslurm pyxis is built against): ""
     * where none. srun needs a configuration even for -V (no slurm.conf yet on a machine that joins:
     * "Could not establish a configuration source"), so the daemons' own -V, which need none, answer
     * then: the same packages' release.
     */
    private String slurmVersion() throws SystemException {
        for (List<String> argv : List.of(List.of("srun", "-V"), List.of("slurmd", "-V"), List.of("slurmctld", "-V"))) {
            try {
                Commands.Result r = commands.run(argv, QUERY);
                String[] words = r.stdout().strip().split("\\s+");
                if (r.succeeded() && words.length == 2 && words[1].matches("[0-9][0-9A-Za-z.+~-]{0,40}")) {
                    return words[1];
                }
            } catch (CommandFailed e) {
                if (!e.notInstalled()) {
                    throw e;
                }
            }
        }
        return "";
    }

    private List<String> wrongFolders() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (String folder : ContainersDiff.FOLDERS) {
            Path p = at(folder);
            if (!java.nio.file.Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                wrong.add(folder);
                continue;
            }
            PosixFileAttributes a =
                    java.nio.file.Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!PosixFilePermissions.toString(a.permissions()).equals("rwxr-xr-x")
                    || !a.owner().getName().equals("root")) {
                wrong.add(folder);
            }
        }
        return wrong;
    }

    @Override
    protected void act(ContainersDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof ContainersActions.MakeFolders make) {
            for (String folder : make.folders()) {
                commands.runChecked(
                        List.of(
                                "install",
                                "-d",
                                "-m",
                                "0755",
                                "-o",
                                "root",
                                "-g",
                                "root",
                                at(folder).toString()),
                        QUERY);
            }
        } else if (action instanceof ContainersActions.WriteFile write) {
            files.write(
                    at(write.path()),
                    write.file().content().getBytes(StandardCharsets.UTF_8),
                    write.file().mode(),
                    "root",
                    "root");
        } else if (action instanceof ContainersActions.RemoveFile remove) {
            files.delete(at(remove.path()));
        } else if (action instanceof ContainersActions.CheckArtifacts check) {
            for (Artifact a : check.artifacts()) {
                fetcher.fetch(a); // a file that differs from its digest is refused here, before anything is installed
            }
        } else if (action instanceof ContainersActions.InstallEnroot install) {
            installPackages(install.packages());
        } else if (action instanceof ContainersActions.InstallNvidiaCli install) {
            installPackages(install.packages());
        } else if (action instanceof ContainersActions.BuildPyxis build) {
            buildPyxis(build.source(), build.slurm());
        } else {
            throw new IllegalArgumentException("not a containers action: " + action);
        }
    }

    private void installPackages(List<Artifact> packages) throws IOException, SystemException {
        List<String> fetched = new ArrayList<>();
        for (Artifact a : packages) {
            fetched.add(fetcher.fetch(a).toString()); // every one checked before any is installed
        }
        commands.runChecked(installing(packages.get(0).format(), fetched), INSTALL);
    }

    /**
     * How a machine's package manager installs the checked package files {@code paths} (of
     * {@code format}, deb or rpm) with what they depend on, keeping any configuration an admin changed.
     */
    public static List<String> installing(String format, List<String> paths) {
        List<String> argv = new ArrayList<>(
                format.equals("deb")
                        ? List.of(
                                "env",
                                "DEBIAN_FRONTEND=noninteractive",
                                "apt-get",
                                "install",
                                "-y",
                                "-q",
                                "--no-install-recommends",
                                "-o",
                                "Dpkg::Options::=--force-confold")
                        : List.of("dnf", "install", "-y", "--setopt=install_weak_deps=False"));
        argv.addAll(paths);
        return argv;
    }

    /**
     * How pyxis's checked source {@code tarball} is unpacked into the empty folder {@code dir} and
     * built there into {@code dir/spank_pyxis.so}: the two commands, in order. The build runs with
     * the machine's compiler against its Slurm headers, at the lowest CPU priority (the machine may be
     * running jobs, and the build can wait for them), with debug paths mapped so that the plugin's
     * bytes do not depend on the folder.
     */
    public static List<List<String>> buildingPyxis(String tarball, String dir) {
        return List.of(
                List.of("tar", "-xzf", tarball, "-C", dir, "--no-same-owner", "--strip-components=1"),
                List.of(
                        "env",
                        "CFLAGS=-ffile-prefix-map=" + dir + "=.",
                        "nice",
                        "-n",
                        "19",
                        "make",
                        "-C",
                        dir,
                        "spank_pyxis.so"));
    }

    /**
     * Unpacks the checked source into a fresh folder and builds it there ({@link #buildingPyxis}),
     * then installs the plugin atomically and the stamp that says what it is.
     */
    private void buildPyxis(Artifact source, String slurm) throws IOException, SystemException {
        Path tarball = fetcher.fetch(source);
        java.nio.file.Files.createDirectories(buildDir);
        Path dir = java.nio.file.Files.createTempDirectory(buildDir, "pyxis-");
        try {
            List<List<String>> steps = buildingPyxis(tarball.toString(), dir.toString());
            commands.runChecked(steps.get(0), QUERY);
            commands.runChecked(steps.get(1), BUILD);
            byte[] plugin = java.nio.file.Files.readAllBytes(dir.resolve("spank_pyxis.so"));
            files.write(at(ContainerFacts.PYXIS_PLUGIN), plugin, "rw-r--r--", "root", "root");
            ContainersDiff.Stamp stamp =
                    new ContainersDiff.Stamp(source.version(), slurm, source.sha256(), ManagedFiles.sha256(plugin));
            files.write(
                    at(ContainersDiff.PYXIS_STAMP),
                    SettingsJson.lenient().writeValueAsBytes(stamp),
                    "rw-r--r--",
                    "root",
                    "root");
        } finally {
            commands.run(List.of("rm", "-rf", "--one-file-system", dir.toString()), QUERY);
        }
    }

    private Path at(String path) {
        return root.resolve(path.substring(1));
    }

    /** What the last pass saw, for the leader's dry runs; nothing where the machine has no Slurm role (the step did not look). */
    @Override
    public Observed reportInto(Observed report) {
        return report.withContainers(seen().map(ContainersPreview::report).orElse(null));
    }
}
