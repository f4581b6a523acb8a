package io.slurmlet.agent.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.system.fake.FakeFiles;
import io.slurmlet.agent.system.fake.FakeHostFiles;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JobsWatchTest {

    @Test
    void aStatusIsSentWhenAJobStartsOrEndsHereAndNotOtherwise() {
        FakeHostFiles host = new FakeHostFiles(new FakeFiles())
                .with("/proc/1/comm", "systemd\n")
                .with("/proc/1/cmdline", "/sbin/init\0");
        AtomicInteger sent = new AtomicInteger();
        JobsWatch watch = new JobsWatch(host, sent::incrementAndGet, Duration.ofSeconds(2));
        assertEquals(List.of(), watch.jobs());
        assertFalse(watch.look());
        host.stepOf(4242, "12").stepOf(4243, "12").stepOf(4300, "9");
        assertTrue(watch.look());
        assertEquals(List.of("9", "12"), watch.jobs(), "each job once, by id");
        assertFalse(watch.look());
        host.ended(4300);
        assertTrue(watch.look());
        assertEquals(List.of("12"), watch.jobs());
        assertEquals(2, sent.get());
        host.with("/proc/5000/comm", "slurmstepd\n")
                .with("/proc/5000/cmdline", "slurmstepd: [99.batch]\0")
                .with("/proc/5000/status", "Name:\tslurmstepd\nUid:\t1000\t1000\t1000\t1000\n")
                .with("/proc/5001/comm", "slurmstepd\n")
                .with("/proc/5001/cmdline", "slurmstepd: [12345678901234567890.batch]\0")
                .with("/proc/5001/status", "Uid:\t0\t0\t0\t0\n");
        assertFalse(watch.look(), "a user's process named slurmstepd, or a title that is no job id, is no job");
    }
}
