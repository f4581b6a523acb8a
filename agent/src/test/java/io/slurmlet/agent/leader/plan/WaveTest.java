package io.slurmlet.agent.leader.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaveTest {

    @Test
    void saysOnceWhenTheLastAnswerHasSaidWithTheFiguresOfThoseWritten() {
        List<String> said = new ArrayList<>();
        Wave wave = new Wave(System.nanoTime() - 1_000_000_000L, 3, said::add);
        wave.written(true);
        wave.written(false);
        assertTrue(said.isEmpty());
        wave.written(true);
        wave.written(true); // said again by mistake: neither counted nor logged again
        assertEquals(1, said.size());
        assertTrue(
                said.get(0).startsWith("the new plans of 2 waiting machines written to their connections "),
                said.get(0));
        assertTrue(
                said.get(0)
                        .endsWith(
                                "after planning began; 1 not written (the poll had ended, its time up or its connection gone: that machine's next poll gets it)"),
                said.get(0));
        // Timed from when the planning began: a second before.
        long p50 = Long.parseLong(said.get(0).replaceAll(".*connections (\\d+) ms \\(p50\\).*", "$1"));
        assertTrue(p50 >= 1000 && p50 < 60_000, said.get(0));
    }

    @Test
    void oneAnswerIsSaidAsOne() {
        List<String> said = new ArrayList<>();
        Wave wave = new Wave(System.nanoTime(), 1, said::add);
        wave.written(true);
        assertEquals(1, said.size());
        assertTrue(
                said.get(0)
                        .matches(
                                "the new plan of 1 waiting machine written to its connection \\d+ ms after planning began"),
                said.get(0));
    }

    @Test
    void aWaveWhoseConnectionsWereAllGoneSaysSo() {
        List<String> said = new ArrayList<>();
        Wave wave = new Wave(System.nanoTime(), 2, said::add);
        wave.written(false);
        wave.written(false);
        assertEquals(
                List.of(
                        "none of the 2 new plans that polls waited for was written: the polls had ended (their time up, or their connections gone)"),
                said);
    }

    @Test
    void answersFromManyThreadsAreEachCountedOnce() throws Exception {
        List<String> said = java.util.Collections.synchronizedList(new ArrayList<>());
        int answers = 10_000;
        Wave wave = new Wave(System.nanoTime(), answers, said::add);
        ExecutorService loops = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < answers; i++) {
            loops.execute(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                wave.written(true);
            });
        }
        go.countDown();
        loops.shutdown();
        assertTrue(loops.awaitTermination(30, TimeUnit.SECONDS));
        assertEquals(1, said.size());
        assertTrue(said.get(0).startsWith("the new plans of 10000 waiting machines written"), said.get(0));
        assertFalse(said.get(0).contains("not written"), said.get(0));
    }
}
