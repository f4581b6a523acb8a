package io.slurmlet.ctl;

import static io.slurmlet.ctl.StubLeader.json;
import static io.slurmlet.ctl.StubLeader.ok;
import static io.slurmlet.ctl.StubLeader.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.ApiError;
import io.slurmlet.model.settings.Problem;
import io.slurmlet.model.users.Account;
import io.slurmlet.model.users.Accounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ctl users …} against a stub leader: what each sends, prints and exits with. */
class UsersCommandTest {

    static final String KEY_A =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK4Xi5LLCHxppqy3+UW6CTqBOeVZ+SJPWTNEi9r72JlX alice@laptop";
    static final String KEY_B =
            "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM+GMaGs7d0T2EkLdEmOl1kJ+gMaWPZrjsYeat3Jd4/P alice@desk";
    static final Account ALICE = new Account("alice@example.org", "alice", 200000, 200000, List.of(KEY_A), true, false);
    static final Account BOB = new Account("bob@example.org", "bob", 200001, 200001, List.of(), false, false);
    static final Account CAROL = new Account("carol@example.org", "carol", 200002, 200002, List.of(), false, true);
    static final Accounts ALL = new Accounts(5, 200003, List.of(ALICE, BOB, CAROL));
    static final String NO_NOBODY = "no account has the login or e-mail nobody: 'ctl users list' shows them";

    @TempDir
    Path dir;

    StubLeader leader;
    CtlRunner ctl;

    @BeforeEach
    void start() throws IOException {
        leader = new StubLeader()
                .on("GET", "/v1/users", ok(json(ALL)))
                .on("POST", "/v1/users/nobody/disable", status(404, json(ApiError.of(NO_NOBODY))))
                .on("POST", "/v1/users/nobody/enable", status(404, json(ApiError.of(NO_NOBODY))))
                .on("DELETE", "/v1/users/nobody", status(404, json(ApiError.of(NO_NOBODY))))
                .on("PUT", "/v1/users/nobody/ssh_keys", status(404, json(ApiError.of(NO_NOBODY))));
        ctl = CtlRunner.against(leader.url(), dir);
    }

    @AfterEach
    void stop() {
        leader.close();
    }

    // list

    @Test
    void listShowsEachAccountButTheRemoved() {
        var r = ctl.run("users", "list");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("""
                LOGIN  UID     EMAIL              KEYS  STATE
                alice  200000  alice@example.org  1     enabled
                bob    200001  bob@example.org    0     disabled
                """, r.out());
        assertEquals("", r.err());
    }

    @Test
    void listAllShowsTheRemovedToo() {
        var r = ctl.run("users", "list", "--all");
        assertEquals("""
                LOGIN  UID     EMAIL              KEYS  STATE
                alice  200000  alice@example.org  1     enabled
                bob    200001  bob@example.org    0     disabled
                carol  200002  carol@example.org  0     removed
                """, r.out());
    }

    @Test
    void listAsJsonIsTheLeadersAnswer() {
        var r = ctl.run("users", "list", "-o", "json");
        assertEquals(json(ALL) + "\n", r.out());
    }

    @Test
    void anEmptyListSaysHowToAdd() {
        leader.on("GET", "/v1/users", ok(json(Accounts.EMPTY)));
        assertEquals(
                "no accounts: add one with 'ctl users add EMAIL --ssh-key KEY'\n",
                ctl.run("users", "list").out());
        leader.on("GET", "/v1/users", ok(json(new Accounts(2, 200001, List.of(CAROL)))));
        assertEquals(
                "no accounts but 1 removed ('ctl users list --all' shows them)\n",
                ctl.run("users", "list").out());
    }

    @Test
    void anOlderLeaderWithoutAccountsIsSaidSo() {
        leader.on(
                "GET",
                "/v1/users",
                status(404, json(ApiError.of("no such resource: the API's paths are under /v1/slurm"))));
        var r = ctl.run("users", "list");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(
                r.err()
                        .startsWith(
                                "the leader at " + leader.url() + " has no GET /v1/users (HTTP 404: no such resource"),
                r::toString);
        assertTrue(r.err().contains("is it an older slurmlet-agent than ctl"), r::toString);
    }

    // add

    @Test
    void addSendsTheKeysGivenThenEachFilesSkippingBlankAndCommentLines() throws IOException {
        leader.on("POST", "/v1/users", status(201, json(ALICE.withKeys(List.of(KEY_A, KEY_B)))));
        Path pub = Files.writeString(dir.resolve("alice.pub"), "# alice's desk\n\n  " + KEY_B + "  \n");
        var r = ctl.run("users", "add", "alice@example.org", "--ssh-key", KEY_A, "--ssh-key-file", pub.toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"email\":\"alice@example.org\",\"ssh_keys\":[" + json(KEY_A) + "," + json(KEY_B) + "]}",
                leader.requests("POST").get(0).body());
        assertEquals("application/json", leader.requests("POST").get(0).header("Content-Type"));
        assertEquals("added alice (uid 200000) for alice@example.org\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void addWithoutAKeySaysHowToGiveOneLater() {
        leader.on("POST", "/v1/users", status(201, json(ALICE.withKeys(List.of()))));
        var r = ctl.run("users", "add", "alice@example.org");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"email\":\"alice@example.org\",\"ssh_keys\":[]}",
                leader.requests("POST").get(0).body());
        assertEquals("""
                added alice (uid 200000) for alice@example.org
                alice has no SSH key yet: ctl users keys alice --ssh-key …
                """, r.out());
    }

    @Test
    void addAsJsonPrintsTheAccountAndTheNoteOnStderr() {
        leader.on("POST", "/v1/users", status(201, json(ALICE.withKeys(List.of()))));
        var r = ctl.run("users", "add", "alice@example.org", "-o", "json");
        assertEquals(json(ALICE.withKeys(List.of())) + "\n", r.out());
        assertEquals("alice has no SSH key yet: ctl users keys alice --ssh-key …\n", r.err());
    }

    @Test
    void anUnreadableKeyFileIsBadUsageNamingTheOptionThePathAndWhy() {
        Path missing = dir.resolve("missing.pub");
        var r = ctl.run("users", "add", "alice@example.org", "--ssh-key-file", missing.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "cannot read --ssh-key-file " + missing + ": no such file",
                r.errLines().get(0));
        assertTrue(r.err().contains("See 'ctl users add --help'."), r::toString);
        r = ctl.run("users", "add", "alice@example.org", "--ssh-key-file", dir.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "cannot read --ssh-key-file " + dir + ": is a directory",
                r.errLines().get(0));
        assertEquals(List.of(), leader.requests, "nothing is asked of the leader");
    }

    @Test
    void aPrivateKeyFileOrOneWithoutKeysIsBadUsage() throws IOException {
        Path secret = Files.writeString(
                dir.resolve("id_ed25519"),
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n");
        var r = ctl.run("users", "add", "alice@example.org", "--ssh-key-file", secret.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "--ssh-key-file " + secret + " holds a private key: give the public one beside it (" + secret
                        + ".pub), and keep the private key to its owner",
                r.errLines().get(0));
        assertFalse(r.err().contains("b3Blbn"), "the key is not printed");
        Path empty = Files.writeString(dir.resolve("empty.pub"), "# nothing yet\n\n");
        r = ctl.run("users", "add", "alice@example.org", "--ssh-key-file", empty.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "--ssh-key-file " + empty + " has no key: it needs a public key a line, as in ~/.ssh/id_ed25519.pub",
                r.errLines().get(0));
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void aRefusedAddPrintsEveryProblemOnItsOwnLine() {
        Problem email =
                new Problem("email", "alice", "email \"alice\" is not an e-mail address: give one as name@example.org");
        Problem key = new Problem(
                "ssh_keys[0]",
                "ssh-ed25519 x",
                "ssh_keys[0] is not an SSH public key: give a line as in id_ed25519.pub");
        leader.on("POST", "/v1/users", StubLeader.refused("the accounts were not changed: 2 problems", email, key));
        var r = ctl.run("users", "add", "alice", "--ssh-key", "ssh-ed25519 x");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                List.of("the accounts were not changed: 2 problems", "  " + email.message(), "  " + key.message()),
                r.errLines());
        assertEquals("", r.out());
    }

    // keys

    @Test
    void keysReplacesTheAccountsKeys() {
        leader.on("PUT", "/v1/users/alice@example.org/ssh_keys", ok(json(ALICE.withKeys(List.of(KEY_A, KEY_B)))));
        var r = ctl.run("users", "keys", "alice@example.org", "--ssh-key", KEY_A, "--ssh-key", KEY_B);
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"ssh_keys\":[" + json(KEY_A) + "," + json(KEY_B) + "]}",
                leader.requests("PUT").get(0).body());
        assertEquals("alice has 2 SSH keys now\n", r.out());
    }

    @Test
    void keysOfADisabledAccountSayItStaysLocked() {
        leader.on("PUT", "/v1/users/bob/ssh_keys", ok(json(BOB.withKeys(List.of(KEY_B)))));
        var r = ctl.run("users", "keys", "bob", "--ssh-key", KEY_B);
        assertEquals("""
                bob has 1 SSH key now
                bob is disabled: the keys let it in once 'ctl users enable bob'
                """, r.out());
    }

    @Test
    void keysWithoutAKeyIsBadUsage() {
        var r = ctl.run("users", "keys", "alice");
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                "give the keys with --ssh-key KEY or --ssh-key-file FILE (they replace all of alice's); to lock alice out, "
                        + "use 'ctl users disable alice'",
                r.errLines().get(0));
        assertEquals(List.of(), leader.requests);
    }

    @Test
    void keysOfAnUnknownAccountIsTheLeadersSentence() {
        var r = ctl.run("users", "keys", "nobody", "--ssh-key", KEY_A);
        assertEquals(1, r.exit(), r::toString);
        assertEquals(NO_NOBODY + "\n", r.err());
        assertEquals("", r.out());
    }

    // disable, enable, remove

    @Test
    void disableGoesThroughEveryLoginAndExits1WhenOneIsUnknown() {
        leader.on("POST", "/v1/users/alice/disable", ok(json(ALICE.withEnabled(false))));
        leader.on("POST", "/v1/users/bob/disable", ok(json(BOB)));
        var r = ctl.run("users", "disable", "alice", "nobody", "bob");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("""
                disabled alice (uid 200000): locked on every machine, files kept
                disabled bob (uid 200001): locked on every machine, files kept
                """, r.out());
        assertEquals(NO_NOBODY + "\n", r.err());
        assertEquals(
                List.of("/v1/users/alice/disable", "/v1/users/nobody/disable", "/v1/users/bob/disable"),
                leader.requests("POST").stream().map(StubLeader.Request::path).toList());
    }

    @Test
    void disableOfARemovedAccountSaysItIsLockedAlready() {
        leader.on("POST", "/v1/users/carol/disable", ok(json(CAROL)));
        var r = ctl.run("users", "disable", "carol");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("carol was removed: it is locked already\n", r.out());
    }

    @Test
    void enableLetsInAgainButNotARemovedAccount() {
        leader.on("POST", "/v1/users/bob/enable", ok(json(BOB.withEnabled(true))));
        leader.on("POST", "/v1/users/carol/enable", ok(json(CAROL)));
        var r = ctl.run("users", "enable", "bob", "carol");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("enabled bob (uid 200001)\n", r.out());
        assertEquals("carol was removed, and a removed account is never enabled again: it stays locked\n", r.err());
    }

    @Test
    void removeSaysWhatItMeansForEach() {
        leader.on("DELETE", "/v1/users/alice@example.org", ok(json(ALICE.asRemoved())));
        leader.on("DELETE", "/v1/users/bob", ok(json(BOB.asRemoved())));
        var r = ctl.run("users", "remove", "alice@example.org", "bob", "nobody");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("""
                removed alice: locked on every machine, files kept; the login and uid 200000 are never given again
                removed bob: locked on every machine, files kept; the login and uid 200001 are never given again
                """, r.out());
        assertEquals(NO_NOBODY + "\n", r.err());
    }

    @Test
    void eachAnswerIsALineOfJsonWithOutputJson() {
        leader.on("POST", "/v1/users/alice/disable", ok(json(ALICE.withEnabled(false))));
        var r = ctl.run("users", "disable", "alice", "nobody", "-o", "json");
        assertEquals(1, r.exit(), r::toString);
        assertEquals(json(ALICE.withEnabled(false)) + "\n" + json(ApiError.of(NO_NOBODY)) + "\n", r.out());
        assertEquals("disabled alice (uid 200000): locked on every machine, files kept\n" + NO_NOBODY + "\n", r.err());
    }

    @Test
    void aFailureThatIsNotAboutOneAccountStopsTheRest() {
        leader.on("POST", "/v1/users/alice/disable", status(401, "{\"error\":\"missing or wrong token\"}"));
        var r = ctl.run("users", "disable", "alice", "bob");
        assertEquals(1, r.exit(), r::toString);
        assertTrue(r.err().startsWith("the leader at " + leader.url() + " refused the token in "), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
        assertEquals(1, leader.requests.size());
    }

    @Test
    void aLoginIsSentAsOnePathSegment() {
        assertEquals("/v1/users/alice", Leader.accountPath("alice"));
        assertEquals("/v1/users/a.b%2Bc@example.org", Leader.accountPath("a.b+c@example.org"));
        assertEquals("/v1/users/..%2Fsettings%20x%C3%A9", Leader.accountPath("../settings xé"));
    }

    // import

    @Test
    void importSendsTheObjectFormAsItIs() throws IOException {
        leader.on("POST", "/v1/users/import", ok(json(ALL)));
        String accounts = "[{\"email\":\"alice@example.org\",\"ssh_keys\":[" + json(KEY_A) + "],\"enabled\":true},"
                + "{\"email\":\"bob@example.org\",\"enabled\":false}]";
        Path file = Files.writeString(dir.resolve("accounts.json"), "{\n  \"accounts\": " + accounts + "\n}\n");
        var r = ctl.run("users", "import", file.toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"accounts\":" + accounts + "}",
                leader.requests("POST").get(0).body());
        assertEquals("application/json", leader.requests("POST").get(0).header("Content-Type"));
        assertEquals("imported: 2 accounts (revision 5)\n", r.out());
    }

    @Test
    void importWrapsAnArray() throws IOException {
        leader.on("POST", "/v1/users/import", ok(json(ALL)));
        String accounts = "[{\"email\":\"alice@example.org\",\"ssh_keys\":[" + json(KEY_A) + "]}]";
        Path file = Files.writeString(dir.resolve("accounts.json"), accounts);
        var r = ctl.run("users", "import", file.toString());
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"accounts\":" + accounts + "}",
                leader.requests("POST").get(0).body());
        assertEquals("imported: 1 account (revision 5)\n", r.out());
    }

    @Test
    void importReadsStandardInputForADash() {
        leader.on("POST", "/v1/users/import", ok(json(ALL)));
        ctl.stdin = "[{\"email\":\"alice@example.org\"}]";
        var r = ctl.run("users", "import", "-", "-o", "json");
        assertEquals(0, r.exit(), r::toString);
        assertEquals(
                "{\"accounts\":[{\"email\":\"alice@example.org\"}]}",
                leader.requests("POST").get(0).body());
        assertEquals(json(ALL) + "\n", r.out());
    }

    @Test
    void aRefusedImportPrintsEveryProblemAndExits1() throws IOException {
        Problem twice = new Problem(
                "accounts[1].email",
                "alice@example.org",
                "[1] email alice@example.org is missing or given twice in the file: give each person once");
        Problem key = new Problem(
                "accounts[2].ssh_keys[0]",
                "x",
                "[2] ssh_keys[0] is not an SSH public key: give a line as in id_ed25519.pub");
        leader.on(
                "POST",
                "/v1/users/import",
                StubLeader.refused("the accounts were not changed: 2 problems", twice, key));
        Path file = Files.writeString(dir.resolve("accounts.json"), "[{\"email\":\"alice@example.org\"}]");
        var r = ctl.run("users", "import", file.toString());
        assertEquals(1, r.exit(), r::toString);
        assertEquals(
                List.of("the accounts were not changed: 2 problems", "  " + twice.message(), "  " + key.message()),
                r.errLines());
        assertEquals("", r.out());
    }

    @Test
    void anImportFileThatIsMissingNotJsonOrWithoutAccountsIsBadUsage() throws IOException {
        Path missing = dir.resolve("missing.json");
        var r = ctl.run("users", "import", missing.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals("cannot read " + missing + ": no such file", r.errLines().get(0));

        Path broken = Files.writeString(dir.resolve("broken.json"), "{\"accounts\": [\n  {\"email\": }\n]}");
        r = ctl.run("users", "import", broken.toString());
        assertEquals(2, r.exit(), r::toString);
        assertTrue(
                r.errLines().get(0).startsWith(broken + " is not JSON at line 2, column 13 (Unexpected character ('}'"),
                r::toString);
        assertTrue(r.errLines().get(0).endsWith("): " + UsersImportCommand.SHAPE), r::toString);

        Path other = Files.writeString(dir.resolve("other.json"), "{\"users\": []}");
        r = ctl.run("users", "import", other.toString());
        assertEquals(2, r.exit(), r::toString);
        assertEquals(
                other + " has no accounts: " + UsersImportCommand.SHAPE,
                r.errLines().get(0));
        assertEquals(List.of(), leader.requests);
    }
}
