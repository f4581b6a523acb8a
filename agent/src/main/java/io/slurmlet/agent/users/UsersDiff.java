package io.slurmlet.agent.users;

import io.slurmlet.agent.reconcile.Action;
import io.slurmlet.agent.reconcile.Diff;
import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.model.observed.UsersSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.UsersPlan;
import io.slurmlet.model.text.Text;
import io.slurmlet.model.users.Account;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The users step's pure half: what the plan wants of the machine's users ({@link #desired}), and
 * the actions from what the machine holds ({@link UsersSeen}) to that ({@link #diff}). The agent
 * acts on them; a dry run on the leader runs the same diff against what the agent last reported.
 *
 * <p>An account is a group and a user of its login, UID and GID, a home of its own (0700) and its
 * keys in ~/.ssh/authorized_keys. A user or group of the same login that slurmlet did not make, or
 * of other ids, is never changed: the step says so, and still keeps every other account. A
 * disabled or removed account is locked (expired) and its files kept; so is a user slurmlet made
 * that is no longer an account.
 */
public final class UsersDiff {

    /** The comment of every user slurmlet makes; how it knows its own users from the site's. */
    public static final String COMMENT = "slurmlet account";

    private UsersDiff() {}

    /**
     * What the plan wants.
     *
     * @param kept     settings' users = "slurmlet": the accounts are kept here; false: the users are the site's
     * @param homeRoot where the homes are
     * @param accounts every account, removed ones too (their users stay locked)
     */
    public record Wanted(boolean kept, String homeRoot, List<Account> accounts) {
        public Wanted {
            accounts = List.copyOf(accounts);
        }

        public String home(Account a) {
            return homeRoot + "/" + a.login();
        }
    }

    public static Wanted desired(NodePlan plan) {
        return plan.users() instanceof UsersPlan.Keep keep
                ? new Wanted(true, keep.homeRoot(), keep.accounts())
                : new Wanted(false, plan.users().homeRoot(), List.of());
    }

    /** What a machine that applied {@code wanted} holds: every account as it wants it (for a preview of a machine that has not reported). */
    public static UsersSeen assumed(Wanted wanted) {
        if (!wanted.kept()) {
            return UsersSeen.SITES;
        }
        List<UsersSeen.User> users = new ArrayList<>();
        for (Account a : wanted.accounts()) {
            users.add(new UsersSeen.User(
                    a.login(),
                    a.uid(),
                    a.gid(),
                    COMMENT + " " + a.email(),
                    !a.active(),
                    a.active() ? UsersSeen.User.PRIVATE : "",
                    a.active() ? keysDigest(a) : ""));
        }
        return new UsersSeen(true, users);
    }

    /** What to do to make {@code seen} as {@code wanted}. Pure. */
    public static Diff diff(Wanted wanted, UsersSeen seen) {
        if (!wanted.kept()) {
            return Diff.of(List.of(), "users are the site's (settings' users is not \"slurmlet\")");
        }
        List<Action> actions = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        Set<String> planned = new HashSet<>();
        for (Account a : wanted.accounts()) {
            planned.add(a.login());
            keep(wanted, a, seen.user(a.login()), actions, problems);
        }
        for (UsersSeen.User u : seen.users()) {
            if (!planned.contains(u.login()) && u.exists() && u.comment().startsWith(COMMENT) && !u.expired()) {
                actions.add(new Lock(u.login(), "no longer an account"));
            }
        }
        int n = wanted.accounts().size();
        Diff diff = Diff.of(actions, "%d account%s as planned".formatted(n, n == 1 ? "" : "s"));
        return problems.isEmpty() ? diff : diff.blockedBy(String.join("; ", problems));
    }

    private static void keep(
            Wanted wanted, Account a, UsersSeen.User now, List<Action> actions, List<String> problems) {
        long groupGid = now == null ? -1 : now.groupGid();
        if (groupGid >= 0 && groupGid != a.gid()) {
            problems.add(
                    "group %s exists here with gid %d, not %d: slurmlet never changes an existing group; rename or remove it"
                            .formatted(a.login(), groupGid, a.gid()));
            return;
        }
        boolean exists = now != null && now.exists();
        if (exists && now.uid() != a.uid()) {
            problems.add(("user %s exists here with uid %d, not %d: slurmlet never changes an existing user's uid; "
                            + "rename or remove that user")
                    .formatted(a.login(), now.uid(), a.uid()));
            return;
        }
        if (exists && !now.comment().startsWith(COMMENT)) {
            problems.add(
                    ("user %s exists here and is the site's (its comment is \"%s\"): slurmlet leaves its keys, home and lock "
                                    + "alone; rename it, or set its comment to \"%s\" to have slurmlet keep it")
                            .formatted(a.login(), now.comment(), COMMENT + " " + a.email()));
            return;
        }
        if (!exists && a.removed()) {
            return;
        }
        if (groupGid < 0) {
            actions.add(new AddGroup(a.login(), a.gid()));
        }
        if (!exists) {
            actions.add(new AddUser(a.login(), a.uid(), a.gid(), wanted.home(a), COMMENT + " " + a.email()));
        }
        boolean expired = exists && now.expired();
        if (a.active() && expired) {
            actions.add(new Unlock(a.login()));
        } else if (!a.active() && !expired) {
            actions.add(new Lock(a.login(), a.removed() ? "removed" : "disabled"));
        }
        if (!a.active()) {
            return;
        }
        String home = now == null ? "" : now.home();
        if (!home.isEmpty() && !home.equals(UsersSeen.User.PRIVATE) && !home.equals(UsersSeen.User.OPEN)) {
            problems.add(
                    ("%s is a %s, not a folder: slurmlet does not follow or replace it; remove it and the next pass makes the folder")
                            .formatted(wanted.home(a), home));
            return;
        }
        if (!home.equals(UsersSeen.User.PRIVATE)) {
            actions.add(new MakeHome(a.login(), wanted.home(a), a.uid(), a.gid()));
        }
        String keys = exists ? now.keys() : "";
        if (keys.equals(UsersSeen.User.LINKED)) {
            problems.add(
                    "%s/.ssh is a symbolic link: slurmlet writes no keys through it; %s removes it and the next pass writes the keys"
                            .formatted(wanted.home(a), a.login()));
        } else if (!keys.equals(keysDigest(a))) {
            actions.add(new WriteKeys(a, wanted.home(a), keyLines(a).size()));
        }
    }

    /** One key, one line: a key the accounts' check let through with a line break is never written. */
    static List<String> keyLines(Account a) {
        return a.sshKeys().stream().filter(k -> Text.unsafe(k).isEmpty()).toList();
    }

    /** The authorized_keys file of an account: its keys' lines. */
    public static byte[] authorizedKeys(Account a) {
        List<String> lines = keyLines(a);
        return (lines.isEmpty() ? "" : String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    static String keysDigest(Account a) {
        return ManagedFiles.sha256(authorizedKeys(a));
    }

    /** The users step's actions: each an account's own, whose failure keeps no other account's actions back. */
    public sealed interface UserAction extends Action permits AddGroup, AddUser, Unlock, Lock, MakeHome, WriteKeys {
        String login();

        @Override
        default boolean isolated() {
            return true;
        }

        @Override
        default String failed(String error) {
            return "%s: %s (the other accounts' changes are done)".formatted(login(), error);
        }
    }

    /** A group of the account's login and GID, made before its user; not worth a line of its own. */
    public record AddGroup(String login, long gid) implements UserAction {
        public String will() {
            return "add group %s (gid %d)".formatted(login, gid);
        }

        public String did() {
            return "";
        }
    }

    public record AddUser(String login, long uid, long gid, String home, String comment) implements UserAction {
        public String will() {
            return "add user %s (uid %d), its home %s".formatted(login, uid, home);
        }

        public String did() {
            return "added %s (uid %d)".formatted(login, uid);
        }
    }

    public record Unlock(String login) implements UserAction {
        public String will() {
            return "unlock " + login;
        }

        public String did() {
            return "unlocked " + login;
        }
    }

    /** @param why "disabled", "removed" or "no longer an account" */
    public record Lock(String login, String why) implements UserAction {
        public String will() {
            return "lock %s (%s): its files are kept".formatted(login, why);
        }

        public String did() {
            return "locked %s (%s)".formatted(login, why);
        }
    }

    public record MakeHome(String login, String home, long uid, long gid) implements UserAction {
        public String will() {
            return "make %s, %s's alone (0700)".formatted(home, login);
        }

        public String did() {
            return "made " + home;
        }
    }

    /** Written as the user, never as root. */
    public record WriteKeys(Account account, String home, int keys) implements UserAction {
        public String login() {
            return account.login();
        }

        public String will() {
            return "write %s's %d key%s to %s/.ssh/authorized_keys"
                    .formatted(account.login(), keys, keys == 1 ? "" : "s", home);
        }

        public String did() {
            return "wrote %s's %d key%s".formatted(account.login(), keys, keys == 1 ? "" : "s");
        }

        @Override
        public String toString() {
            return "WriteKeys[" + account.login() + "]";
        }
    }
}
