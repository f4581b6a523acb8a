package io.slurmlet.agent.leader.lending;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.store.Leadership;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.fake.FakeCommands;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HooksTest {

    @Test
    void aLeaderThatNoLongerLeadsRunsNoHookAndSaysWhoLeads() {
        FakeCommands commands =
                new FakeCommands().answerPrefix(List.of("/usr/local/sbin/release"), Commands.Result.ok("done"));
        AtomicBoolean leads = new AtomicBoolean(true);
        Leadership leadership = new Leadership() {
            @Override
            public boolean leads() {
                return leads.get();
            }

            @Override
            public Optional<String> leader() {
                return leads.get() ? Optional.empty() : Optional.of("n2 (https://n2:7818)");
            }
        };
        Hooks hooks = new Hooks(
                commands,
                Optional.empty(),
                Optional.of(List.of("/usr/local/sbin/release", "{node}")),
                Duration.ofSeconds(5),
                leadership);
        assertEquals(0, hooks.run(Lending.Hook.RELEASE, "n7", "r1").exit());
        leads.set(false);
        Leadership.NotLeading refused =
                assertThrows(Leadership.NotLeading.class, () -> hooks.run(Lending.Hook.RELEASE, "n7", "r1"));
        assertTrue(
                refused.getMessage()
                        .contains("does not run the release hook for n7; the leader is n2 (https://n2:7818)"),
                refused.getMessage());
        assertEquals(1, commands.calls().size(), "the hook ran once, while this agent led");
    }
}
