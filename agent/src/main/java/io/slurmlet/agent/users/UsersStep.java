package io.slurmlet.agent.users;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.agent.reconcile.Reconciler;
import io.slurmlet.agent.reconcile.Reports;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.agent.system.Users;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.UsersSeen;
import io.slurmlet.model.users.Account;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The cluster's accounts as Linux users on this machine (settings' users = "slurmlet"): each with
 * its login, UID and GID, a home of its own (0700), and its SSH keys in ~/.ssh/authorized_keys
 * (0600, read and written as the user, so a link the user put in their home leads nowhere root
 * could not otherwise be led). {@link UsersDiff} decides; this step observes and acts. users = ""
 * leaves the machine's users alone, and looks at none. Each account stands alone: a home that
 * cannot be read or written in a few seconds fails that account's action only, and the others'
 * locks, users and keys still land.
 */
public final class UsersStep extends Reconciler<UsersDiff.Wanted, UsersSeen> implements Reports {

    private static final Logger LOG = Logger.getLogger(UsersStep.class);

    /** The comment of every user slurmlet makes; how it knows its own users from the site's. */
    public static final String COMMENT = UsersDiff.COMMENT;

    private final Users users;
    private final Path root;

    public UsersStep(Users users, Path root) {
        super("users", UsersDiff::desired, UsersDiff::diff);
        this.users = users;
        this.root = root;
    }

    /** The planned accounts' logins and slurmlet's own users, as the machine has them. */
    @Override
    public UsersSeen observe(UsersDiff.Wanted wanted) throws IOException, SystemException {
        if (!wanted.kept()) {
            return UsersSeen.SITES;
        }
        Set<String> logins = new LinkedHashSet<>();
        wanted.accounts().forEach(a -> logins.add(a.login()));
        // A user of slurmlet's comment with a login no account can have was not made by slurmlet: not looked at.
        users.managed(COMMENT).stream().filter(UsersSeen::isLogin).forEach(logins::add);
        List<UsersSeen.User> seen = new ArrayList<>();
        for (String login : logins) {
            Optional<Account> account = wanted.accounts().stream()
                    .filter(a -> a.login().equals(login))
                    .findFirst();
            seen.add(user(login, account.map(wanted::home), account));
        }
        return new UsersSeen(true, seen);
    }

    private UsersSeen.User user(String login, Optional<String> home, Optional<Account> account) throws SystemException {
        long groupGid = users.group(login).orElse(-1L);
        Optional<Users.Entry> entry = users.user(login);
        String homeIs = "";
        String keys = "";
        // Only an account's own home is looked into: before its user is made, or where that user is the account's.
        boolean own = entry.isEmpty()
                || account.isPresent()
                        && account.get().uid() == entry.get().uid()
                        && entry.get().comment().startsWith(COMMENT);
        if (home.isPresent() && own) {
            Path dir = ManagedFiles.under(root, home.get());
            Optional<Users.Dir> d = users.directory(dir);
            long uid = account.get().uid();
            long gid = account.get().gid();
            homeIs = d.isEmpty()
                    ? ""
                    : d.get().privateTo(uid, gid)
                            ? UsersSeen.User.PRIVATE
                            : d.get().type().equals("directory")
                                    ? UsersSeen.User.OPEN
                                    : d.get().type();
            if (entry.isPresent() && homeIs.equals(UsersSeen.User.PRIVATE)) {
                Path ssh = dir.resolve(".ssh");
                try {
                    Users.Held held = users.readAsUser(uid, gid, ssh, ssh.resolve("authorized_keys"));
                    keys = held.linked()
                            ? UsersSeen.User.LINKED
                            : held.content().map(ManagedFiles::sha256).orElse("");
                } catch (SystemException e) {
                    // This account's own file: said, and taken as not holding the keys (written again, as the
                    // user), never a failure of the look that would keep every other account's changes back.
                    LOG.warnf("users: %s's keys not read: %s", login, e.getMessage());
                }
            }
        }
        if (entry.isEmpty()) {
            return new UsersSeen.User(login, -1, groupGid, "", false, homeIs, "");
        }
        Users.Entry e = entry.get();
        return new UsersSeen.User(login, e.uid(), groupGid, comment(e.comment()), e.expired(), homeIs, keys);
    }

    /** A user's comment as reported: one printable line, cut to what a report takes. */
    static String comment(String gecos) {
        String line = gecos.replaceAll("[\\x00-\\x1f\\x7f-\\x9f]", "?");
        return line.length() > 256 ? line.substring(0, 256) : line;
    }

    @Override
    protected void act(UsersDiff.Wanted wanted, Action action) throws IOException, SystemException {
        if (!(action instanceof UsersDiff.UserAction a)) {
            throw new IllegalArgumentException("not a users action: " + action);
        }
        if (a instanceof UsersDiff.AddGroup g) {
            users.addGroup(g.login(), g.gid());
        } else if (a instanceof UsersDiff.AddUser u) {
            users.addUser(u.login(), u.uid(), u.gid(), u.home(), u.comment());
        } else if (a instanceof UsersDiff.Unlock u) {
            users.setExpired(u.login(), false);
        } else if (a instanceof UsersDiff.Lock l) {
            users.setExpired(l.login(), true);
        } else if (a instanceof UsersDiff.MakeHome h) {
            users.ensurePrivateDirectory(ManagedFiles.under(root, h.home()), h.uid(), h.gid());
        } else if (a instanceof UsersDiff.WriteKeys k) {
            // Inside the home the user controls every name: .ssh and its keys are written as the user.
            Path ssh = ManagedFiles.under(root, k.home()).resolve(".ssh");
            users.writeAsUser(
                    k.account().uid(),
                    k.account().gid(),
                    ssh,
                    ssh.resolve("authorized_keys"),
                    UsersDiff.authorizedKeys(k.account()));
        }
    }

    @Override
    public Observed reportInto(Observed report) {
        return report.withUsers(seen().orElse(null));
    }
}
