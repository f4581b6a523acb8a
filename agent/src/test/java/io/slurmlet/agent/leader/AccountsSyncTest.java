package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccountsSyncTest {

    static final List<String> ARGV = List.of("platform-accounts", "--json");

    @TempDir
    Path state;

    @Test
    void thePlatformsListIsTheTruthAndAnAccountItDropsIsDisabledNotRemoved() throws Exception {
        AccountsStore store = AccountsStore.open(state);
        FakeCommands commands = new FakeCommands().answer(ARGV, Commands.Result.ok("""
                {"accounts": [{"email": "alice@example.org"}, {"email": "bob@example.org", "enabled": true}]}"""));
        AccountsSync sync = new AccountsSync(commands, ARGV, store);
        assertEquals("accounts synced: 2 from platform-accounts --json", sync.run());
        assertEquals(
                List.of("alice", "bob"),
                store.current().accounts().stream().map(a -> a.login()).toList());

        commands.answer(ARGV, Commands.Result.ok("[{\"email\": \"alice@example.org\"}]"));
        sync.run();
        assertTrue(store.current().find("alice").orElseThrow().active());
        assertFalse(store.current().find("bob").orElseThrow().enabled(), "bob is no longer the platform's: disabled");
        assertFalse(store.current().find("bob").orElseThrow().removed(), "never removed: his files and uid stay his");
    }

    @Test
    void badOutputOrAFailedCommandChangesNothing() throws Exception {
        AccountsStore store = AccountsStore.open(state);
        FakeCommands commands = new FakeCommands().answer(ARGV, Commands.Result.ok("not json"));
        AccountsSync sync = new AccountsSync(commands, ARGV, store);
        assertTrue(sync.run().startsWith("the accounts sync printed no JSON"));
        commands.answer(ARGV, Commands.Result.ok("[{\"email\": \"alice@example.org\"}, {\"email\": \"nope\"}]"));
        assertTrue(sync.run()
                .startsWith(
                        "the accounts sync was refused, nothing changed: [1] email \"nope\" is not an e-mail address"));
        commands.answer(ARGV, new Commands.Result(2, "", "platform API: 503"));
        assertTrue(sync.run().contains("platform API: 503"));
        assertEquals(0, store.current().revision());
    }
}
