package io.slurmlet.agent.munge;

import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeServices;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MungeStepTest {

    private static final Path KEY = Path.of("/etc/munge/munge.key");
    private final MungeKey key = MungeKey.random();
    private final FakeFiles files = new FakeFiles();
    private final FakeServices services = new FakeServices();
    private final MungeStep step = new MungeStep(files, services, Path.of("/"));

    private NodePlan plan(Optional<MungeKey> k) {
        return NodePlan.of("n1", k.isPresent() ? Set.of(Role.COMPUTE) : Set.of()).withMungeKey(k);
    }

    @Test
    void firstApplyWritesTheKeyRootOnlyAndStartsMunge() {
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.Kind.CHANGED, o.kind());
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; enabled munge; started munge", o.detail());
        assertEquals(List.of("write /etc/munge/munge.key r-------- munge:munge"), files.log);
        assertEquals(List.of("enable munge", "start munge"), services.log);
    }

    @Test
    void secondApplyWritesNothing() {
        step.apply(plan(Optional.of(key)));
        files.log.clear();
        services.log.clear();
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.unchanged("munge", "the key matches and munge runs"), o);
        assertTrue(files.log.isEmpty());
        assertTrue(services.log.isEmpty());
    }

    @Test
    void aNewKeyRestartsMungedWhichReadsItOnlyAtStart() {
        files.put(KEY, MungeKey.random().bytes(), "r--------", "munge", "munge");
        services.running("munge");
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals("wrote the cluster's key to /etc/munge/munge.key; restarted munge for its new key", o.detail());
        assertEquals(List.of("restart munge"), services.log);
    }

    @Test
    void aKeyWithLooseModeIsTightenedWithoutARestart() {
        files.put(KEY, key.bytes(), "rw-r--r--", "root", "root");
        services.running("munge");
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.changed("munge", "made /etc/munge/munge.key 0400 munge:munge"), o);
        assertTrue(services.log.isEmpty());
    }

    @Test
    void aMachineWithoutARoleKeepsItsMungeAsItIs() {
        files.put(KEY, new byte[64], "r--------", "munge", "munge");
        assertEquals(Outcome.Kind.UNCHANGED, step.apply(plan(Optional.empty())).kind());
        assertTrue(files.log.isEmpty() && services.log.isEmpty());
    }

    @Test
    void failuresSayWhatFailedAndNeverShowTheKey() {
        files.failWrites(KEY);
        Outcome o = step.apply(plan(Optional.of(key)));
        assertEquals(Outcome.failed("munge", "cannot write /etc/munge/munge.key: No space left on device"), o);

        FakeFiles ok = new FakeFiles();
        FakeServices broken = new FakeServices().failing("munge");
        Outcome failed = new MungeStep(ok, broken, Path.of("/")).apply(plan(Optional.of(key)));
        assertTrue(failed.failed());
        assertEquals("systemctl start munge failed (exit 1): Job for munge.service failed because the control process "
                + "exited with error code.", failed.detail());
        String base64 = Base64.getEncoder().encodeToString(key.bytes());
        for (Outcome each : List.of(o, failed)) {
            assertFalse(each.toString().contains(base64.substring(0, 16)));
        }
    }
}
