package io.slurmlet.model.settings;

import io.slurmlet.model.text.Text;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules settings must meet for Slurm to run on them. Every rule runs; each broken one adds a
 * {@link Problem} that names the key, the value and the fix.
 */
final class SettingsCheck {

    /** What Slurm takes as a node, cluster or partition name, and what a host name can be. */
    private static final Pattern SLURM_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    /** A Slurm host list expression, as gpu[001-004]: a set of names, not one. */
    private static final Pattern HOST_LIST = Pattern.compile("[A-Za-z0-9_.-]*\\[[0-9,-]+\\][A-Za-z0-9_.-]*");
    /** Words slurm.conf gives a meaning of its own where a node or partition name goes. */
    private static final Set<String> SLURM_KEYWORDS = Set.of("ALL", "DEFAULT");
    /** host:/path, as an NFS export is written; an IPv6 host in brackets, as [fd00::5]:/export. */
    private static final Pattern NFS_EXPORT =
            Pattern.compile("([A-Za-z0-9][A-Za-z0-9_.:-]*|\\[[0-9A-Fa-f:.]+\\]):/[A-Za-z0-9_./-]*");
    /** An absolute path of plain names, which a systemd mount unit's name is made from. */
    private static final Pattern SHARED_PATH = Pattern.compile("(/[A-Za-z0-9_.-]+)+");
    /** The characters of a plain path, before it is normalised. */
    private static final Pattern PATH_CHARS = Pattern.compile("[/A-Za-z0-9_.-]+");
    /** The system's own directories: a shared file system mounted there would hide the machine's own. */
    private static final List<String> SYSTEM_DIRS = List.of(
            "/",
            "/etc",
            "/usr",
            "/var",
            "/var/lib",
            "/home",
            "/root",
            "/boot",
            "/opt",
            "/srv",
            "/tmp",
            "/proc",
            "/sys",
            "/dev",
            "/run",
            "/bin",
            "/sbin",
            "/lib",
            "/lib64",
            "/mnt",
            "/media");

    /** A slurm.conf key: a word of letters and digits. */
    private static final Pattern SLURM_CONF_KEY = Pattern.compile("[A-Za-z][A-Za-z0-9]{0,63}");

    private static final String NAME_RULE = "letters, digits, _ . - (up to 63, starting with a letter or digit)";

    private final SlurmSettings s;
    private final List<Problem> problems = new ArrayList<>();

    SettingsCheck(SlurmSettings settings) {
        this.s = settings;
    }

    List<Problem> problems() {
        checkController();
        checkClusterName();
        checkPartition();
        checkNodes();
        checkLent();
        checkUsers();
        checkAuth();
        checkShared();
        checkSlurmConf();
        return List.copyOf(problems);
    }

    private void checkController() {
        if (s.controller().isEmpty()) {
            if (s.enabled()) {
                add("controller", "", "controller is empty: name the node that runs slurmctld, as controller=NODE");
            }
            return;
        }
        checkNodeName("controller", s.controller());
    }

    private void checkClusterName() {
        String name = s.clusterName();
        if (!SLURM_NAME.matcher(name).matches()) {
            add(
                    "cluster_name",
                    name,
                    "cluster_name %s is not a name Slurm takes: %s, as %s"
                            .formatted(quote(name), NAME_RULE, SlurmSettings.DEFAULT_CLUSTER_NAME));
        } else if (!name.equals(name.toLowerCase(Locale.ROOT))) {
            add(
                    "cluster_name",
                    name,
                    "cluster_name %s has capitals, which Slurm's accounting silently lowers: write it %s"
                            .formatted(quote(name), name.toLowerCase(Locale.ROOT)));
        }
    }

    private void checkPartition() {
        String name = s.partition();
        if (!SLURM_NAME.matcher(name).matches()) {
            add(
                    "partition",
                    name,
                    "partition %s is not a name Slurm takes: %s, as %s"
                            .formatted(quote(name), NAME_RULE, SlurmSettings.DEFAULT_PARTITION));
        } else if (isKeyword(name)) {
            add(
                    "partition",
                    name,
                    "partition %s is a word slurm.conf reserves (%s): take another name, as %s"
                            .formatted(quote(name), keywords(), SlurmSettings.DEFAULT_PARTITION));
        }
    }

    private void checkNodes() {
        checkNames("nodes", s.nodes());
    }

    private void checkLent() {
        List<Integer> valid = checkNames("lent", s.lent());
        if (s.allNodes()) {
            return;
        }
        Set<String> nodes = Set.copyOf(s.nodes());
        for (int i : valid) {
            String n = s.lent().get(i);
            if (!nodes.contains(n)) {
                add(
                        "lent[" + i + "]",
                        n,
                        ("lent[%d] %s is not in nodes: only a node that runs slurmd can be lent; "
                                        + "add it to nodes first, or set all_nodes=true")
                                .formatted(i, quote(n)));
            }
        }
    }

    private void checkUsers() {
        String users = s.users();
        if (!users.isEmpty() && !users.equals(SlurmSettings.USERS_SLURMLET)) {
            add(
                    "users",
                    users,
                    "users %s is not a choice: %s has slurmlet make them from its accounts, empty leaves them to the site"
                            .formatted(quote(users), quote(SlurmSettings.USERS_SLURMLET)));
        }
    }

    private void checkAuth() {
        String auth = s.auth();
        if (!auth.isEmpty() && !auth.equals(SlurmSettings.AUTH_SLURM)) {
            add(
                    "auth",
                    auth,
                    ("auth %s is not a choice: %s (munged and the munge key, the default) or %s (Slurm's own "
                                    + "auth/slurm with slurm.jwks, Slurm 24.05 and later)")
                            .formatted(quote(auth), quote(SlurmSettings.AUTH_MUNGE), quote(SlurmSettings.AUTH_SLURM)));
        }
    }

    private void checkShared() {
        SharedStorage sh = s.shared();
        if (sh.path().isEmpty()) {
            if (!sh.nfs().isEmpty() || !sh.server().isEmpty()) {
                add(
                        "shared.path",
                        "",
                        "shared.path is empty: say where every machine sees the shared files, as shared.path=/shared");
            }
        } else if (isSystemDir(sh.path())) {
            add(
                    "shared.path",
                    sh.path(),
                    "shared.path %s is the system's own directory: take one of its own, as /shared"
                            .formatted(sh.path()));
        } else if (!SHARED_PATH.matcher(sh.path()).matches() || sh.path().contains("/.")) {
            add(
                    "shared.path",
                    sh.path(),
                    "shared.path %s is not an absolute path of plain names, as /shared".formatted(quote(sh.path())));
        }
        if (!sh.nfs().isEmpty() && !sh.server().isEmpty()) {
            add(
                    "shared",
                    sh.nfs() + " " + sh.server(),
                    ("shared names both the site's export (shared.nfs %s) and a node to "
                                    + "export it (shared.server %s): keep one, and clear the other with shared.nfs= or shared.server=")
                            .formatted(quote(sh.nfs()), quote(sh.server())));
        }
        if (!sh.nfs().isEmpty() && !NFS_EXPORT.matcher(sh.nfs()).matches()) {
            add(
                    "shared.nfs",
                    sh.nfs(),
                    "shared.nfs %s is not host:/path, as nfs1:/export/shared".formatted(quote(sh.nfs())));
        }
        if (!sh.server().isEmpty() && checkNodeName("shared.server", sh.server())) {
            boolean known = sh.server().equals(s.controller())
                    || s.allNodes()
                    || s.nodes().contains(sh.server());
            if (!known) {
                add(
                        "shared.server",
                        sh.server(),
                        ("shared.server %s is neither the controller nor one of nodes: "
                                        + "name one of them, or add it to nodes")
                                .formatted(quote(sh.server())));
            }
        }
    }

    /** Whether {@code path}, of plain characters and normalised ({@code /etc/}, {@code /var/../etc}), is a system directory. */
    private static boolean isSystemDir(String path) {
        return PATH_CHARS.matcher(path).matches()
                && SYSTEM_DIRS.contains(Path.of(path).normalize().toString());
    }

    private void checkSlurmConf() {
        Map<String, String> seen = new HashMap<>();
        for (var entry : s.slurmConf().entrySet()) {
            String name = entry.getKey();
            String value = entry.getValue() == null ? "" : entry.getValue();
            String key = "slurm_conf." + name;
            if (!SLURM_CONF_KEY.matcher(name).matches()) {
                add(
                        key,
                        name,
                        "slurm_conf key %s is not a slurm.conf key: letters and digits, as slurm_conf.MaxJobCount=50000"
                                .formatted(quote(name)));
                continue;
            }
            String other = seen.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
            if (other != null) {
                add(
                        key,
                        value,
                        "slurm_conf names %s twice (%s and %s), and slurm.conf ignores case: keep one, and clear the other with slurm_conf.%s="
                                .formatted(other, other, name, name));
                continue;
            }
            SlurmConfKeys.whyOwned(name)
                    .ifPresent(why -> add(
                            key,
                            value,
                            "%s is a key slurmlet writes itself, so a site cannot add it (%s)".formatted(key, why)));
            Optional<String> unsafe = Text.unsafe(value);
            if (value.isBlank()) {
                add(
                        key,
                        value,
                        "%s is empty: a key without a value breaks scontrol reconfigure; give it a value, or remove it with %s="
                                .formatted(key, key));
            } else if (unsafe.isPresent()) {
                add(
                        key,
                        value,
                        "%s %s %s, which would end or break its slurm.conf line: one line of plain text"
                                .formatted(key, quote(value), unsafe.get()));
            } else if (value.chars().anyMatch(c -> c == '#' || c == '"' || c == '\\') || !Text.printableAscii(value)) {
                add(
                        key,
                        value,
                        ("%s %s holds a # (the start of a comment), a double quote (the end of a quoted value), a backslash "
                                        + "(which joins the next line to this one) or a character outside printable ASCII, which slurm.conf would read "
                                        + "as something else than this one value: write the value without them (slurmlet quotes a value with spaces itself)")
                                .formatted(key, quote(value)));
            } else if (s.containers() && name.equalsIgnoreCase("Prolog")) {
                checkSiteProlog(key, value);
            }
        }
    }

    /**
     * With containers, slurmlet's prolog runs the site's Prolog after its own: each program of it
     * must be an absolute path (a bare name would be looked up in the prolog's search path, not where
     * Slurm looks), the list comma-separated without spaces around the commas.
     */
    private void checkSiteProlog(String key, String value) {
        for (String program : value.split(",", -1)) {
            if (!program.startsWith("/") || !program.equals(program.strip()) || program.contains(" ")) {
                add(
                        key,
                        value,
                        ("%s %s: with containers=true slurmlet's prolog runs the site's after its own, and each program of it "
                                        + "must be an absolute path without spaces, comma-separated (%s is not): write /etc/slurm/prolog.sh, or "
                                        + "/etc/slurm/prolog.d/* for each file of a folder")
                                .formatted(key, quote(value), quote(program)));
                return;
            }
        }
    }

    /** Checks each element of a list of node names; returns the indexes of those that are valid names. */
    private List<Integer> checkNames(String key, List<String> names) {
        List<Integer> valid = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (!checkNodeName(key + "[" + i + "]", n)) {
                continue;
            }
            Integer first = seen.putIfAbsent(n.toLowerCase(Locale.ROOT), i);
            if (first != null) {
                String how = names.get(first).equals(n) ? "" : ", as host names ignore case";
                add(
                        key + "[" + i + "]",
                        n,
                        "%s names %s twice (%s[%d] and %s[%d]%s): name each node once"
                                .formatted(key, n, key, first, key, i, how));
                continue;
            }
            valid.add(i);
        }
        return valid;
    }

    /** Adds a problem unless {@code name} can name a node; says whether it can. */
    private boolean checkNodeName(String key, String name) {
        Optional<Problem> problem = nodeName(key, name);
        problem.ifPresent(problems::add);
        return problem.isEmpty();
    }

    /** Why {@code name} cannot name a node, under {@code key}; empty when it can. */
    static Optional<Problem> nodeName(String key, String name) {
        if (HOST_LIST.matcher(name).matches() && !SLURM_NAME.matcher(name).matches()) {
            String fix = key.endsWith("]")
                    ? "name each node, comma-separated, as %s=gpu001,gpu002".formatted(key.replaceAll("\\[.*", ""))
                    : "name one node, as %s=gpu001".formatted(key);
            return Optional.of(new Problem(
                    key, name, "%s %s is a Slurm host list, not one node: %s".formatted(key, quote(name), fix)));
        }
        if (!SLURM_NAME.matcher(name).matches()) {
            return Optional.of(new Problem(
                    key,
                    name,
                    "%s %s is not a name Slurm takes: %s; use the machine's host name"
                            .formatted(key, quote(name), NAME_RULE)));
        }
        if (isKeyword(name)) {
            return Optional.of(new Problem(
                    key,
                    name,
                    "%s %s is a word slurm.conf reserves (%s): a node cannot be called that; use the machine's host name"
                            .formatted(key, quote(name), keywords())));
        }
        if (TemporaryFiles.looksLikeOne(name)) {
            return Optional.of(new Problem(
                    key,
                    name,
                    ("%s %s ends as slurmlet's temporary files do (.tmp- and 12 hex digits), and the "
                                    + "leader keeps a file a machine under its name: use another name for the machine")
                            .formatted(key, quote(name))));
        }
        return Optional.empty();
    }

    private static boolean isKeyword(String name) {
        return SLURM_KEYWORDS.contains(name.toUpperCase(Locale.ROOT));
    }

    private static String keywords() {
        return String.join(", ", SLURM_KEYWORDS.stream().sorted().toList());
    }

    private void add(String key, String value, String message) {
        problems.add(new Problem(key, value, message));
    }

    /** A value in double quotes, as an error shows it ({@link Text#quote}). */
    static String quote(String value) {
        return Text.quote(value);
    }
}
