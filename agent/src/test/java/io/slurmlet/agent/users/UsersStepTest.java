package io.slurmlet.agent.users;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.Users;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeUsers;
import io.slurmlet.model.observed.UsersSeen;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.UsersPlan;
import io.slurmlet.model.users.Account;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UsersStepTest {

    static final String KEY =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEuOvAXyxKBTxdBHVC6xfUjUGNUmwL6gPgKTGWGGjX2H alice@laptop";
    static final Account ALICE = new Account("alice@example.org", "alice", 200000, 200000, List.of(KEY), true, false);

    final FakeUsers users = new FakeUsers();
    final FakeFiles files = new FakeFiles();
    final UsersStep step = new UsersStep(users, Path.of("/"));

    static NodePlan plan(List<Account> accounts, String homeRoot) {
        return NodePlan.of("n1", Set.of())
                .withUsers(accounts == null ? UsersPlan.LEAVE : new UsersPlan.Keep(accounts, homeRoot));
    }

    @Test
    void anAccountBecomesAUserWithItsHomeAndKeysAndTwiceChangesNothing() throws Exception {
        Outcome o = step.apply(plan(List.of(ALICE), "/shared/home"));
        assertEquals(Outcome.Kind.CHANGED, o.kind(), o.toString());
        assertEquals(
                List.of(
                        "groupadd alice 200000",
                        "useradd alice 200000 /shared/home/alice",
                        "install -d /shared/home/alice 200000:200000 0700",
                        "install -d /shared/home/alice/.ssh 200000:200000 0700",
                        "write as 200000 /shared/home/alice/.ssh/authorized_keys"),
                users.log);
        assertEquals(
                KEY + "\n",
                new String(
                        users.userFiles.get(Path.of("/shared/home/alice/.ssh/authorized_keys")),
                        StandardCharsets.UTF_8));
        users.log.clear();
        files.log.clear();
        assertEquals(
                Outcome.unchanged("users", "1 account as planned"), step.apply(plan(List.of(ALICE), "/shared/home")));
        assertTrue(users.log.isEmpty() && files.log.isEmpty());
    }

    @Test
    void aDisabledAccountIsLockedAndItsFilesKeptAndEnablingUnlocksIt() {
        step.apply(plan(List.of(ALICE), "/home"));
        users.log.clear();
        files.log.clear();
        assertEquals(
                Outcome.changed("users", "locked alice (disabled)"),
                step.apply(plan(List.of(ALICE.withEnabled(false)), "/home")));
        assertTrue(files.log.isEmpty(), "its files are kept");
        assertEquals(Outcome.changed("users", "unlocked alice"), step.apply(plan(List.of(ALICE), "/home")));
        assertEquals(
                Outcome.changed("users", "locked alice (removed)"),
                step.apply(plan(List.of(ALICE.asRemoved()), "/home")));
    }

    /** A user whose own key file hangs (a huge sparse file, a mount of their own) holds up nobody else, and cannot dodge a lock. */
    @Test
    void anAccountWhoseKeyFileHangsIsLockedAndKeepsNoOtherAccountsChangesBack() {
        Account bob = new Account(
                "bob@example.org", "bob", 200001, 200001, List.of(KEY.replace("alice", "bob")), true, false);
        Account carol = new Account("carol@example.org", "carol", 200002, 200002, List.of(), true, false);
        step.apply(plan(List.of(ALICE, bob), "/home"));
        users.hanging.add(Path.of("/home/alice/.ssh/authorized_keys"));
        users.log.clear();

        Account bobsNewKey = bob.withKeys(List.of(KEY.replace("alice", "bob2")));
        Outcome o = step.apply(plan(List.of(ALICE.withEnabled(false), bobsNewKey, carol), "/home"));
        assertTrue(users.log.contains("lock alice"), "the lock never waits on alice's home: " + users.log);
        assertTrue(
                users.log.contains("write as 200001 /home/bob/.ssh/authorized_keys"),
                "bob's new key lands: " + users.log);
        assertTrue(users.log.contains("useradd carol 200002 /home/carol"), "carol is made: " + users.log);
        assertEquals(Outcome.Kind.CHANGED, o.kind(), "alice disabled: her keys are not written, nothing failed: " + o);

        // Enabled again, her keys are owed and her file still hangs: that one action fails, said with her name.
        users.log.clear();
        Outcome again = step.apply(plan(List.of(ALICE, bobsNewKey.withKeys(List.of()), carol), "/home"));
        assertTrue(again.failed(), again.toString());
        assertTrue(
                again.detail()
                        .startsWith(
                                "alice: cannot write /home/alice/.ssh/authorized_keys as uid 200000: it took more than 5 s"),
                again.detail());
        assertTrue(
                again.detail().contains("unlocked alice") && again.detail().contains("wrote bob's 0 keys"),
                again.detail());
        assertTrue(
                users.log.contains("unlock alice")
                        && users.log.contains("write as 200001 /home/bob/.ssh/authorized_keys"),
                users.log.toString());
    }

    @Test
    void aSitesUserOfTheSameLoginAndUidIsLeftAlone() {
        users.users.put("alice", new Users.Entry("alice", 200000, 200000, "/home/alice", "Alice Site", false));
        users.groups.put("alice", 200000L);
        Outcome o = step.apply(plan(List.of(ALICE), "/home"));
        assertTrue(
                o.failed()
                        && o.detail()
                                .startsWith("user alice exists here and is the site's (its comment is \"Alice Site\")"),
                o.detail());
        assertTrue(users.log.isEmpty() && users.userFiles.isEmpty(), "its keys, home and lock untouched: " + users.log);
    }

    @Test
    void anExistingUserWithAnotherUidIsNeverChanged() {
        users.users.put("alice", new Users.Entry("alice", 1001, 1001, "/home/alice", "Alice", false));
        Account bob = new Account("bob@example.org", "bob", 200001, 200001, List.of(), true, false);
        Outcome o = step.apply(plan(List.of(ALICE, bob), "/home"));
        assertTrue(o.failed());
        assertTrue(
                o.detail()
                        .startsWith(
                                "user alice exists here with uid 1001, not 200000: slurmlet never changes an existing user's uid"),
                o.detail());
        assertTrue(o.detail().contains("added bob (uid 200001)"), "the others are still made: " + o.detail());
        assertEquals(1001, users.users.get("alice").uid());
    }

    @Test
    void usersLeftToTheSiteAreNotTouchedAndAUserNoLongerAnAccountIsLocked() {
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan(null, "/home")).kind());
        assertTrue(users.log.isEmpty());
        step.apply(plan(List.of(ALICE), "/home"));
        users.log.clear();
        assertEquals(
                Outcome.changed("users", "locked alice (no longer an account)"), step.apply(plan(List.of(), "/home")));
    }

    @Test
    void keysAUserChangedAreWrittenAgainAndTheStepReportsWhatItSaw() {
        step.apply(plan(List.of(ALICE), "/home"));
        users.userFiles.put(
                Path.of("/home/alice/.ssh/authorized_keys"), "ssh-rsa AAAA other\n".getBytes(StandardCharsets.UTF_8));
        users.log.clear();
        assertEquals(Outcome.changed("users", "wrote alice's 1 key"), step.apply(plan(List.of(ALICE), "/home")));
        UsersSeen.User seen = step.seen().orElseThrow().user("alice");
        assertEquals(
                new UsersSeen.User(
                        "alice",
                        200000,
                        200000,
                        "slurmlet account alice@example.org",
                        false,
                        UsersSeen.User.PRIVATE,
                        io.slurmlet.agent.reconcile.ManagedFiles.sha256((KEY + "\n").getBytes(StandardCharsets.UTF_8))),
                seen,
                "the machine as the pass left it");
    }

    @Test
    void aLinkedSshFolderHoldsBackThatAccountsKeysOnlyAndNothingIsWrittenThroughIt() {
        Account bob = new Account("bob@example.org", "bob", 200001, 200001, List.of(KEY), true, false);
        step.apply(plan(List.of(ALICE), "/home"));
        users.links.add(Path.of("/home/alice/.ssh"));
        users.log.clear();
        Outcome o = step.apply(plan(List.of(ALICE.withKeys(List.of()), bob), "/home"));
        assertTrue(
                o.failed()
                        && o.detail()
                                .startsWith("/home/alice/.ssh is a symbolic link: slurmlet writes no keys through it"),
                o.detail());
        assertTrue(
                o.detail().contains("added bob (uid 200001)") && o.detail().contains("wrote bob's 1 key"), o.detail());
        assertTrue(users.log.stream().noneMatch(l -> l.contains("/home/alice")), users.log.toString());
    }

    @Test
    void aHomeThatIsNotAFolderIsNeitherFollowedNorReplaced() {
        users.links.add(Path.of("/home/alice"));
        Outcome o = step.apply(plan(List.of(ALICE), "/home"));
        assertTrue(
                o.failed()
                        && o.detail()
                                .contains(
                                        "/home/alice is a symbolic link, not a folder: slurmlet does not follow or replace it"),
                o.detail());
        assertTrue(users.log.stream().noneMatch(l -> l.contains("install -d /home/alice")), users.log.toString());
    }

    @Test
    void usersOfTheSiteAreNotLookedAt() {
        step.apply(plan(null, "/home"));
        assertEquals(UsersSeen.SITES, step.seen().orElseThrow());
    }
}
