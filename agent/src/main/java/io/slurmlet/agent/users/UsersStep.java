package io.slurmlet.agent.users;

import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.agent.system.Users;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.text.Text;
import io.slurmlet.model.users.Account;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster's accounts as Linux users on this machine (settings' users = "slurmlet"): each with
 * its login, UID and GID, a home of its own (0700), and its SSH keys in ~/.ssh/authorized_keys
 * (0600, written as the user, so a link the user put in their home leads nowhere root could not
 * otherwise be led). A user of the same login that slurmlet did not make is left alone, and said so. A disabled or removed account is locked (expired: ssh refuses it even
 * with a key) and its files kept. An existing user of the same login with another UID is never
 * changed: the step says so. users = "" leaves the machine's users alone.
 */
public final class UsersStep implements Step {

    /** The comment of every user slurmlet makes; how it knows its own users from the site's. */
    public static final String COMMENT = "slurmlet account";
    static final String KEYS_MODE = "rw-------";

    private final Users users;
    private final Files files;
    private final Path root;

    public UsersStep(Users users, Files files, Path root) {
        this.users = users;
        this.files = files;
        this.root = root;
    }

    @Override
    public String name() {
        return "users";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        if (plan.users() == null) {
            return Outcome.unchanged(name(), "users are the site's (settings' users is not \"slurmlet\")");
        }
        List<String> done = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> planned = new HashSet<>();
        for (Account a : plan.users()) {
            planned.add(a.login());
            try {
                keep(a, plan.homeRoot(), done, problems);
            } catch (SystemException | IOException e) {
                problems.add("%s: %s".formatted(a.login(), e.getMessage()));
            }
        }
        try {
            for (String login : users.managed(COMMENT)) {
                Optional<Users.Entry> e = users.user(login);
                if (!planned.contains(login) && e.isPresent() && !e.get().expired()) {
                    users.setExpired(login, true);
                    done.add("locked " + login + " (no longer an account)");
                }
            }
        } catch (SystemException e) {
            problems.add(e.getMessage());
        }
        if (!problems.isEmpty()) {
            return Outcome.failed(name(), String.join("; ", problems) + (done.isEmpty() ? "" : "; done: " + String.join("; ", done)));
        }
        return done.isEmpty()
                ? Outcome.unchanged(name(), "%d account%s as planned".formatted(plan.users().size(), plan.users().size() == 1 ? "" : "s"))
                : Outcome.changed(name(), String.join("; ", done));
    }

    private void keep(Account a, String homeRoot, List<String> done, List<String> problems) throws SystemException, IOException {
        Optional<Long> gid = users.group(a.login());
        if (gid.isPresent() && gid.get() != a.gid()) {
            problems.add("group %s exists here with gid %d, not %d: slurmlet never changes an existing group; rename or remove it"
                    .formatted(a.login(), gid.get(), a.gid()));
            return;
        }
        Optional<Users.Entry> user = users.user(a.login());
        if (user.isPresent() && user.get().uid() != a.uid()) {
            problems.add(("user %s exists here with uid %d, not %d: slurmlet never changes an existing user's uid; "
                    + "rename or remove that user").formatted(a.login(), user.get().uid(), a.uid()));
            return;
        }
        if (user.isPresent() && !user.get().comment().startsWith(COMMENT)) {
            problems.add(("user %s exists here and is the site's (its comment is \"%s\"): slurmlet leaves its keys, home and lock "
                    + "alone; rename it, or set its comment to \"%s\" to have slurmlet keep it").formatted(a.login(),
                    user.get().comment(), COMMENT + " " + a.email()));
            return;
        }
        if (user.isEmpty() && a.removed()) {
            return;
        }
        String home = homeRoot + "/" + a.login();
        if (gid.isEmpty()) {
            users.addGroup(a.login(), a.gid());
        }
        if (user.isEmpty()) {
            users.addUser(a.login(), a.uid(), a.gid(), home, COMMENT + " " + a.email());
            done.add("added %s (uid %d)".formatted(a.login(), a.uid()));
            user = users.user(a.login());
        }
        boolean expired = user.map(Users.Entry::expired).orElse(false);
        if (a.active() && expired) {
            users.setExpired(a.login(), false);
            done.add("unlocked " + a.login());
        } else if (!a.active() && !expired) {
            users.setExpired(a.login(), true);
            done.add("locked " + a.login() + (a.removed() ? " (removed)" : " (disabled)"));
        }
        if (!a.active()) {
            return;
        }
        Path homeDir = ManagedFiles.under(root, home);
        Path ssh = homeDir.resolve(".ssh");
        if (users.ensurePrivateDirectory(homeDir, a.uid(), a.gid())) {
            done.add("made " + home);
        }
        // Inside the home the user controls every name: .ssh and its keys are written as the user.
        List<String> lines = keyLines(a);
        if (users.writeAsUser(a.uid(), a.gid(), ssh, ssh.resolve("authorized_keys"), authorizedKeys(lines))) {
            done.add("wrote %s's %d key%s".formatted(a.login(), lines.size(), lines.size() == 1 ? "" : "s"));
        }
    }

    /** One key, one line: a key the accounts' check let through with a line break is never written. */
    static List<String> keyLines(Account a) {
        return a.sshKeys().stream().filter(k -> Text.unsafe(k).isEmpty()).toList();
    }

    /** The authorized_keys file of an account: its keys' lines. */
    public static byte[] authorizedKeys(Account a) {
        return authorizedKeys(keyLines(a));
    }

    private static byte[] authorizedKeys(List<String> lines) {
        return (lines.isEmpty() ? "" : String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }
}
