package io.slurmlet.agent.containers;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.slurmlet.agent.containers.ContainersActions.BuildPyxis;
import io.slurmlet.agent.containers.ContainersActions.CheckArtifacts;
import io.slurmlet.agent.containers.ContainersActions.ContainersAction;
import io.slurmlet.agent.containers.ContainersActions.InstallEnroot;
import io.slurmlet.agent.containers.ContainersActions.InstallNvidiaCli;
import io.slurmlet.agent.containers.ContainersActions.MakeFolders;
import io.slurmlet.agent.containers.ContainersActions.RemoveFile;
import io.slurmlet.agent.containers.ContainersActions.WriteFile;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.facts.ContainerFacts;
import io.slurmlet.model.plan.Artifact;
import io.slurmlet.model.plan.ContainersPlan;
import io.slurmlet.model.plan.NodePlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The containers step's pure half: what a machine holds for jobs in containers as its plan wants
 * it ({@link Wanted}), and the actions from what it holds ({@link Seen}) to that. Nothing is ever
 * removed: containers off leaves what was installed (the leader takes pyxis out of plugstack.conf,
 * which is what turns them off).
 */
public final class ContainersDiff {

    /** enroot's settings for many users: each user's folders under root-owned parents, made by the prolog. */
    static final String ENROOT_CONF = "/etc/enroot/enroot.conf.d/50-slurmlet.conf";
    /** The shared path inside every container. */
    static final String MOUNTS = "/etc/enroot/mounts.d/50-slurmlet-shared.fstab";
    /** On a machine without GPUs: containers are told there are none. */
    static final String GPU_ENVIRON = "/etc/enroot/environ.d/50-slurmlet-gpus.env";
    /** The folders enroot and pyxis keep users' folders in, made again at boot (/run is a tmpfs). */
    static final String TMPFILES = "/etc/tmpfiles.d/slurmlet-containers.conf";
    /** What pyxis was built from and for, beside the plugin: what the facts report. */
    public static final String PYXIS_STAMP = "/usr/local/lib/slurmlet/pyxis.json";

    /** The folders {@link #TMPFILES} makes (again at boot): root's, 0755, so no user can make (or take) another's folder in them. */
    static final List<String> USER_FOLDERS =
            List.of("/run/enroot", "/run/pyxis", "/var/lib/enroot", "/var/lib/enroot/data", "/var/lib/enroot/cache");
    /**
     * Every folder the step keeps, root's and 0755: those of {@link #USER_FOLDERS}, and those its files
     * go in, which every user must be able to read (srun loads pyxis as the user; enroot reads its
     * settings as the user), made before any file is written into them.
     */
    public static final List<String> FOLDERS = Stream.concat(
                    USER_FOLDERS.stream(),
                    Stream.of(
                            "/etc/enroot",
                            "/etc/enroot/enroot.conf.d",
                            "/etc/enroot/mounts.d",
                            "/etc/enroot/environ.d",
                            "/usr/local/lib/slurm",
                            "/usr/local/lib/slurmlet"))
            .toList();

    private ContainersDiff() {}

    /**
     * What the plan wants here.
     *
     * @param install   whether to install anything
     * @param artifacts the plan's pinned files
     * @param files     the files slurmlet keeps for them, by path: content, and whether the file is a program
     * @param absent    the files slurmlet writes only on other machines (the GPU line where there are GPUs)
     * @param gpus      whether the machine has NVIDIA GPUs: nvidia-container-cli is installed too
     * @param look      whether the step looks at the machine: on every Slurm machine, containers on or
     *                  off (while off it changes nothing, and what it saw is what a dry run that turns
     *                  them on is judged against)
     */
    public record Wanted(
            boolean install,
            List<Artifact> artifacts,
            Map<String, Kept> files,
            List<String> absent,
            boolean gpus,
            boolean look) {
        public Wanted {
            artifacts = List.copyOf(artifacts);
            files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
            absent = List.copyOf(absent);
        }
    }

    /** A file slurmlet keeps: its text, and whether it is a program (0755) or not (0644). */
    public record Kept(String content, boolean program) {
        public String mode() {
            return program ? "rwxr-xr-x" : "rw-r--r--";
        }

        /** How {@link Seen#files} says it when the file is as kept: its sha256, mode and owner. */
        String seen() {
            return ManagedFiles.sha256(content) + " " + mode() + " root:root";
        }
    }

    /**
     * What the machine holds.
     *
     * @param arch        its architecture, as its package manager names it (amd64, x86_64)
     * @param format      its package format: deb or rpm
     * @param enroot      each package's installed version (enroot, enroot+caps, and the two of {@link #NVIDIA}), absent where
     *                    not installed
     * @param slurm       the machine's Slurm version (srun -V); "" where none is installed
     * @param headers     the version of the Slurm headers pyxis is built against (slurm_version.h); "" where none
     * @param pyxis       what the stamp says pyxis was built from and for; empty: no stamp
     * @param pyxisSha256 the sha256 of the plugin at {@link ContainerFacts#PYXIS_PLUGIN}; "" where absent
     * @param files       each kept file's sha256, mode and owner by path ({@code HEX rw-r--r-- root:root}), "" where absent
     * @param folders     the folders of {@link #FOLDERS} that are not root's 0755 folders
     */
    public record Seen(
            String arch,
            String format,
            Map<String, String> enroot,
            String slurm,
            String headers,
            Optional<Stamp> pyxis,
            String pyxisSha256,
            Map<String, String> files,
            List<String> folders) {
        public Seen {
            enroot = Map.copyOf(enroot);
            files = Map.copyOf(files);
            folders = List.copyOf(folders);
        }
    }

    /**
     * What pyxis at {@link ContainerFacts#PYXIS_PLUGIN} was built from and for.
     *
     * @param pyxis        its version
     * @param slurm        the Slurm version whose headers it was built against
     * @param sourceSha256 the source tarball's digest
     * @param sha256       the plugin's digest when it was installed
     */
    @RegisterForReflection
    public record Stamp(
            @JsonProperty("pyxis") String pyxis,

            @JsonProperty("slurm") String slurm,

            @JsonProperty("source_sha256") String sourceSha256,

            @JsonProperty("sha256") String sha256) {

        /**
         * The stamp in {@code json}; empty where it cannot be read or lacks a field: no stamp, so the
         * step builds pyxis again and the facts report none. The one reading of it, for both.
         */
        public static Optional<Stamp> parse(byte[] json) {
            try {
                Stamp read = SettingsJson.lenient().readValue(json, Stamp.class);
                return read == null
                                || read.pyxis() == null
                                || read.slurm() == null
                                || read.sourceSha256() == null
                                || read.sha256() == null
                        ? Optional.empty()
                        : Optional.of(read);
            } catch (IOException e) {
                return Optional.empty();
            }
        }
    }

    /** NVIDIA's container CLI and its library, as their packages are named (deb and rpm alike), for GPU machines. */
    static final List<String> NVIDIA = List.of("libnvidia-container1", "libnvidia-container-tools");
    /**
     * Every file the step keeps on some machine: what it looks at, containers on or off (with them on,
     * each is either one of {@link Wanted#files} or one of {@link Wanted#absent}).
     */
    static final List<String> PATHS = List.of(TMPFILES, ENROOT_CONF, MOUNTS, GPU_ENVIRON, ContainerFacts.PROLOG);

    /** enroot's two packages. */
    static final List<String> ENROOT = List.of("enroot", "enroot+caps");

    /** What {@code plan} wants here: on a Slurm machine with containers off, nothing but a look. Pure. */
    public static Wanted desired(NodePlan plan) {
        Wanted wanted = desired(plan.containers());
        return wanted.install() || plan.roles().isEmpty() ? wanted : LOOK_ONLY;
    }

    /** Containers off on a Slurm machine: nothing changed, what is there seen. */
    static final Wanted LOOK_ONLY = new Wanted(false, List.of(), Map.of(), List.of(), false, true);

    /** What a machine's containers plan {@code c} wants on it: the folders aside, the files it writes, each as written. Pure. */
    public static Wanted desired(ContainersPlan c) {
        if (!c.install()) {
            return new Wanted(false, List.of(), Map.of(), List.of(), false, false);
        }
        Map<String, Kept> files = new LinkedHashMap<>();
        files.put(TMPFILES, new Kept(ContainersTexts.tmpfiles(), false));
        files.put(ENROOT_CONF, new Kept(ContainersTexts.enrootConf(), false));
        if (!c.sharedPath().isEmpty()) {
            files.put(MOUNTS, new Kept(ContainersTexts.mounts(c.sharedPath()), false));
        }
        if (!c.gpus()) {
            files.put(GPU_ENVIRON, new Kept(ContainersTexts.noGpus(), false));
        }
        files.put(ContainerFacts.PROLOG, new Kept(ContainersTexts.prolog(), true));
        List<String> absent = new ArrayList<>();
        if (c.sharedPath().isEmpty()) {
            absent.add(MOUNTS);
        }
        if (c.gpus()) {
            absent.add(GPU_ENVIRON);
        }
        return new Wanted(true, c.artifacts(), files, absent, c.gpus(), true);
    }

    /** The actions from {@code seen} to {@code wanted}. Pure. */
    public static Diff diff(Wanted wanted, Seen seen) {
        if (!wanted.install()) {
            return Diff.of(List.of(), "containers off: nothing is installed for them, and what was is left");
        }
        List<ContainersAction> actions = new ArrayList<>();
        if (!seen.folders().isEmpty()) {
            // The folders come first: the tmpfiles file that makes them is written first too.
            if (!wanted.files().get(TMPFILES).seen().equals(seen.files().getOrDefault(TMPFILES, ""))) {
                actions.add(new WriteFile(
                        TMPFILES,
                        wanted.files().get(TMPFILES),
                        !seen.files().getOrDefault(TMPFILES, "").isEmpty()));
            }
            actions.add(new MakeFolders(seen.folders()));
        }
        wanted.files().forEach((path, kept) -> {
            String now = seen.files().getOrDefault(path, "");
            if (!kept.seen().equals(now)
                    && actions.stream()
                            .noneMatch(a -> a instanceof WriteFile w && w.path().equals(path))) {
                actions.add(new WriteFile(path, kept, !now.isEmpty()));
            }
        });
        for (String path : wanted.absent()) {
            if (!seen.files().getOrDefault(path, "").isEmpty()) {
                actions.add(new RemoveFile(path));
            }
        }
        List<String> blocked = new ArrayList<>();
        List<Artifact> enroot = ofMachine(wanted.artifacts(), ENROOT, seen);
        if (enroot.size() < 2) {
            blocked.add(
                    "the artifact table has no enroot and enroot+caps for %s %s: add them to the leader's table (slurmlet.leader.containers.table)"
                            .formatted(seen.arch(), seen.format()));
        } else {
            notInstalled(enroot, seen).ifPresent(was -> actions.add(new InstallEnroot(enroot, was)));
        }
        List<Artifact> nvidia = wanted.gpus() ? ofMachine(wanted.artifacts(), NVIDIA, seen) : List.of();
        if (wanted.gpus() && nvidia.size() < 2) {
            blocked.add(
                    ("this machine has NVIDIA GPUs, and containers there need nvidia-container-cli: the artifact table has no "
                                    + "libnvidia-container1 and libnvidia-container-tools for %s %s: add them to the leader's table "
                                    + "(slurmlet.leader.containers.table)")
                            .formatted(seen.arch(), seen.format()));
        } else if (wanted.gpus()) {
            notInstalled(nvidia, seen).ifPresent(was -> actions.add(new InstallNvidiaCli(nvidia, was)));
        }
        List<Artifact> pyxis = wanted.artifacts().stream()
                .filter(a -> a.name().equals("pyxis") && a.format().equals("source"))
                .toList();
        if (pyxis.isEmpty()) {
            blocked.add(
                    "the artifact table has no pyxis source: add it to the leader's table (slurmlet.leader.containers.table)");
        } else if (seen.slurm().isEmpty()) {
            blocked.add(
                    "pyxis is built against this machine's Slurm, which is not installed yet (the packages step installs it)");
        } else if (seen.headers().isEmpty()) {
            blocked.add(
                    "pyxis is built against Slurm's headers (libslurm-dev, or slurm-devel), which are not installed yet (the packages "
                            + "step installs them)");
        } else if (!ContainerFacts.release(seen.headers()).equals(ContainerFacts.release(seen.slurm()))) {
            // Slurm refuses a plugin of another release: every job would fail once plugstack.conf names it.
            blocked.add(
                    ("Slurm's headers here are %s and its commands %s: a pyxis built against them would not load; install the "
                                    + "headers of the installed Slurm (libslurm-dev %s)")
                            .formatted(seen.headers(), seen.slurm(), seen.slurm()));
        } else {
            pyxisWhy(pyxis.get(0), seen)
                    .ifPresent(why -> actions.add(new BuildPyxis(pyxis.get(0), seen.headers(), why)));
        }
        checkFirst(actions);
        Diff diff = Diff.of(
                actions,
                "enroot %s and pyxis %s for Slurm %s installed%s"
                        .formatted(
                                enroot.isEmpty() ? "?" : enroot.get(0).version(),
                                pyxis.isEmpty() ? "?" : pyxis.get(0).version(),
                                seen.headers(),
                                nvidia.isEmpty()
                                        ? ""
                                        : ", nvidia-container-cli "
                                                + nvidia.get(0).version()));
        return blocked.isEmpty() ? diff : diff.blockedBy(String.join("; ", blocked));
    }

    /** Where more than one action installs or builds from fetched files: every one checked before the first. */
    private static void checkFirst(List<ContainersAction> actions) {
        List<Artifact> used = new ArrayList<>();
        int first = -1;
        int fetching = 0;
        for (int i = 0; i < actions.size(); i++) {
            ContainersAction a = actions.get(i);
            List<Artifact> of = a instanceof InstallEnroot e
                    ? e.packages()
                    : a instanceof InstallNvidiaCli n
                            ? n.packages()
                            : a instanceof BuildPyxis b ? List.of(b.source()) : List.of();
            if (!of.isEmpty()) {
                first = first < 0 ? i : first;
                fetching++;
                used.addAll(of);
            }
        }
        if (fetching > 1) {
            actions.add(first, new CheckArtifacts(List.copyOf(used)));
        }
    }

    /**
     * Where one of {@code packages} is not installed at its pinned version: what is installed of them
     * now, in words ("" for nothing); empty where every one is.
     */
    private static Optional<String> notInstalled(List<Artifact> packages, Seen seen) {
        if (packages.stream().allMatch(a -> installed(a, seen.enroot().getOrDefault(a.name(), "")))) {
            return Optional.empty();
        }
        return Optional.of(String.join(
                ", ",
                packages.stream()
                        .filter(a -> !seen.enroot().getOrDefault(a.name(), "").isEmpty())
                        .map(a -> a.name() + " " + seen.enroot().get(a.name()))
                        .toList()));
    }

    /** Why pyxis is built again, or empty where the installed one is the pinned source's, for this Slurm, unaltered. */
    private static Optional<String> pyxisWhy(Artifact source, Seen seen) {
        if (seen.pyxis().isEmpty() || seen.pyxisSha256().isEmpty()) {
            return Optional.of("none is installed");
        }
        Stamp stamp = seen.pyxis().get();
        if (!stamp.sourceSha256().equals(source.sha256())) {
            return Optional.of("the installed one is pyxis " + stamp.pyxis() + ", from another source");
        }
        if (!stamp.slurm().equals(seen.headers())) {
            return Optional.of("the installed one was built for Slurm " + stamp.slurm());
        }
        if (!stamp.sha256().equals(seen.pyxisSha256())) {
            return Optional.of("the installed plugin is not the one slurmlet built (its sha256 is "
                    + seen.pyxisSha256().substring(0, 12) + ")");
        }
        return Optional.empty();
    }

    /** The artifacts of {@code names} for this machine's architecture and package format, one per name. */
    static List<Artifact> ofMachine(List<Artifact> artifacts, List<String> names, Seen seen) {
        List<Artifact> mine = new ArrayList<>();
        for (String name : names) {
            artifacts.stream()
                    .filter(a -> a.name().equals(name)
                            && a.arch().equals(seen.arch())
                            && a.format().equals(seen.format()))
                    .findFirst()
                    .ifPresent(mine::add);
        }
        return mine;
    }

    /** Whether {@code installed} (the package manager's version, as 4.1.2-1) is the artifact's upstream version. */
    static boolean installed(Artifact a, String installed) {
        return installed.equals(a.version()) || installed.startsWith(a.version() + "-");
    }
}
