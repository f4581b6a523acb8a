package io.slurmlet.agent.pam;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.PamSeen;
import io.slurmlet.model.text.Text;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * pam_slurm_adopt in sshd's account stack on machines that run slurmd and are not the controller
 * (users = "slurmlet"): a user gets in by ssh only while a job of theirs runs there, and lands in
 * that job's cgroup; root, and the members of an admin group, get in through pam_access before it.
 * pam_systemd is kept out of sshd's sessions (it would move the session out of the job's cgroup).
 * Only once the node's slurmd runs with PrologFlags=Contain and proctrack/cgroup: before, every
 * user would be refused. Never on the controller: users log in there to submit jobs. The original
 * /etc/pam.d/sshd is kept in the state directory and put back, byte for byte, when users is set
 * back to "".
 */
public final class PamStep extends Reconciler<PamDiff.Wanted, PamSeen> implements Reports {

    static final Path SSHD = Path.of("/etc/pam.d/sshd");
    static final Path ACCESS = Path.of("/etc/security/access-slurmlet.conf");
    static final String MODE = "rw-r--r--";
    static final String BEGIN = "# BEGIN slurmlet";
    static final String END = "# END slurmlet";
    /** Where distributions put pam_slurm_adopt.so (Debian's package: /usr/lib/security). */
    static final List<String> MODULE_DIRS = List.of(
            "/usr/lib/security",
            "/lib/security",
            "/usr/lib64/security",
            "/lib64/security",
            "/usr/lib/x86_64-linux-gnu/security",
            "/lib/x86_64-linux-gnu/security",
            "/usr/lib/aarch64-linux-gnu/security");

    private final Files files;
    private final Services services;
    private final Path root;
    private final Path backup;
    private final Optional<String> adminGroup;
    /** A group name as groupadd takes it (Debian's default NAME_REGEX, without the trailing $). */
    private static final Pattern GROUP = Pattern.compile("[a-z_][a-z0-9_-]{0,31}");

    /**
     * @param stateDir   where the original /etc/pam.d/sshd is kept while slurmlet's stands in its place
     * @param adminGroup a group whose members get in without a job, beside root
     */
    public PamStep(Files files, Services services, Path root, Path stateDir, Optional<String> adminGroup) {
        super(
                "pam",
                plan -> PamDiff.desired(
                        plan, stateDir.resolve("pam").resolve("sshd.orig").toString()),
                PamDiff::diff);
        this.files = files;
        this.services = services;
        this.root = root;
        this.backup = stateDir.resolve("pam").resolve("sshd.orig");
        this.adminGroup = adminGroup.filter(g -> !g.isBlank());
    }

    /** sshd's PAM file now and as slurmlet would write it here, the original kept or not, the module, slurmd's slurm.conf. */
    @Override
    public PamSeen observe(PamDiff.Wanted wanted) throws IOException, SystemException {
        Optional<Files.Stat> kept = files.stat(backup);
        Optional<Files.Stat> now = files.stat(at(SSHD));
        Optional<String> module = module();
        String wantedSshd = "";
        boolean ours = now.isPresent() && text(now.get().content()).contains(BEGIN);
        if (module.isPresent() && now.isPresent() && (kept.isPresent() || !ours)) {
            wantedSshd = ManagedFiles.sha256(rendered(kept.orElse(now.get()), module.get()));
        }
        String problem =
                adminGroup.isPresent() && !GROUP.matcher(adminGroup.get()).matches()
                        // A line break or a colon would give access.conf a rule of its own.
                        ? ("slurmlet.node.admin-group %s is not a group name (a-z, 0-9, _ and -, starting with a letter or _, at most 32): "
                                        + "set the group's name in /etc/slurmlet/agent.yaml; sshd's PAM stack is left as it is")
                                .formatted(Text.quote(adminGroup.get()))
                        : "";
        return new PamSeen(
                kept.isPresent(),
                digest(now),
                ours,
                wantedSshd,
                module.orElse(""),
                digest(files.stat(at(ACCESS))),
                problem.isEmpty() ? ManagedFiles.sha256(access()) : "",
                digest(files.stat(at(Path.of("/etc/slurm/slurm.conf")))),
                services.isActive("slurmd"),
                problem);
    }

    @Override
    protected void act(PamDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (action instanceof PamDiff.PutBack) {
            Files.Stat kept = files.stat(backup).orElseThrow(() -> new IOException(backup + " is gone"));
            files.write(at(SSHD), kept.content(), kept.mode(), kept.owner(), kept.group());
            files.delete(backup);
        } else if (action instanceof PamDiff.KeepOriginal) {
            Files.Stat now = files.stat(at(SSHD)).orElseThrow(() -> new IOException(SSHD + " is gone"));
            files.write(backup, now.content(), now.mode(), now.owner(), now.group());
        } else if (action instanceof PamDiff.Adopt adopt) {
            if (adopt.access()) {
                files.write(at(ACCESS), access().getBytes(StandardCharsets.UTF_8), MODE, "root", "root");
            }
            if (adopt.sshd()) {
                Files.Stat original = files.stat(backup).orElseThrow(() -> new IOException(backup + " is gone"));
                String module = module().orElseThrow(() -> new IOException("pam_slurm_adopt.so is gone"));
                files.write(at(SSHD), rendered(original, module), MODE, "root", "root");
            }
        } else {
            throw new IllegalArgumentException("not a PAM action: " + action);
        }
    }

    private byte[] rendered(Files.Stat original, String module) {
        return render(text(original.content()), module, this::sessionLines).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] content) {
        return new String(content, StandardCharsets.UTF_8);
    }

    private static String digest(Optional<Files.Stat> file) {
        return file.map(f -> ManagedFiles.sha256(f.content())).orElse("");
    }

    /**
     * sshd's PAM file with pam_access and pam_slurm_adopt after its last account line, and its
     * session include replaced by that file's session lines without pam_systemd.
     */
    static String render(String original, String module, Function<String, List<String>> included) {
        List<String> lines = new ArrayList<>(List.of(original.split("\n", -1)));
        int lastAccount = -1;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            if (l.startsWith("account") || l.startsWith("-account") || l.equals("@include common-account")) {
                lastAccount = i;
            }
        }
        List<String> out = new ArrayList<>();
        out.add(
                "# Changed by slurmlet (users = \"slurmlet\"): pam_slurm_adopt lets a user in only while a job of theirs");
        out.add("# runs here. The original is kept by the agent and comes back when users is set to \"\".");
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i).strip();
            String[] w = l.split("\\s+");
            boolean debianInclude = l.equals("@include common-session");
            boolean rhelInclude = w.length >= 3
                    && (w[0].equals("session") || w[0].equals("-session"))
                    && (w[1].equals("include") || w[1].equals("substack"));
            if (debianInclude || rhelInclude) {
                String file = debianInclude ? "common-session" : w[2];
                out.add(BEGIN + ": the session lines of " + file + ", without pam_systemd");
                included.apply(file).stream()
                        .filter(s -> !s.contains("pam_systemd.so"))
                        .forEach(out::add);
                out.add(END);
            } else {
                out.add(lines.get(i));
            }
            if (i == lastAccount) {
                out.add(BEGIN + ": root and the admin group in without a job, everyone else only with one");
                out.add("account    sufficient   pam_access.so accessfile=" + ACCESS);
                out.add("account    required     " + module + " action_adopt_failure=deny action_generic_failure=deny");
                out.add(END);
            }
        }
        return String.join("\n", out);
    }

    /** The session lines of an included PAM file, as they stand in it. */
    private List<String> sessionLines(String file) {
        try {
            Optional<Files.Stat> s = files.stat(at(Path.of("/etc/pam.d").resolve(file)));
            List<String> lines = new ArrayList<>();
            for (String l :
                    new String(s.map(Files.Stat::content).orElse(new byte[0]), StandardCharsets.UTF_8).split("\n")) {
                String t = l.strip();
                if (t.startsWith("session") || t.startsWith("-session")) {
                    lines.add(l);
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String access() {
        return "# Written by slurmlet: who gets into this Slurm node by ssh without a job of theirs here.\n"
                + "+:root:ALL\n" + adminGroup.map(g -> "+:(" + g + "):ALL\n").orElse("") + "-:ALL:ALL\n";
    }

    private Optional<String> module() throws IOException {
        for (String dir : MODULE_DIRS) {
            Path p = Path.of(dir, "pam_slurm_adopt.so");
            if (files.stat(at(p)).isPresent()) {
                return Optional.of(p.toString());
            }
        }
        return Optional.empty();
    }

    private Path at(Path absolute) {
        return ManagedFiles.under(root, absolute.toString());
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withPam(seen().orElse(null));
    }
}
