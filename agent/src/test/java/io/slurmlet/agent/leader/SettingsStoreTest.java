package io.slurmlet.agent.leader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.leader.SettingsStore.Result;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsStoreTest {

    @TempDir
    Path state;

    private static final OptionalLong ANY = OptionalLong.empty();

    private static SlurmSettings cluster(String... lent) {
        return new SlurmSettings(
                true, null, "n0", List.of("n1", "n2"), false, List.of(lent), null, null, null, false, null);
    }

    @Test
    void freshStoreServesDefaultsAtRevisionZeroWithoutWriting() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        assertEquals(0, store.current().revision());
        assertEquals(SlurmSettings.DEFAULTS, store.current().settings());
        assertFalse(Files.exists(state.resolve(SettingsStore.FILE_NAME)));
    }

    @Test
    void everyAcceptedChangeRaisesTheRevisionAndIsOnDisk() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        Result.Accepted first = assertInstanceOf(Result.Accepted.class, store.update(ANY, s -> cluster()));
        Result.Accepted second =
                assertInstanceOf(Result.Accepted.class, store.update(OptionalLong.of(1), s -> cluster("n1")));
        assertEquals(1, first.document().revision());
        assertEquals(2, second.document().revision());
        SettingsStore reopened = SettingsStore.open(state);
        assertEquals(second.document(), reopened.current());
    }

    @Test
    void theStoreFileIsRootOnly() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(SettingsStore.FILE_NAME))));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)));
    }

    @Test
    void aChangeNamingAnOldRevisionIsRefusedAndStoresNothing() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        String before = Files.readString(state.resolve(SettingsStore.FILE_NAME));
        Result.Conflict conflict =
                assertInstanceOf(Result.Conflict.class, store.update(OptionalLong.of(0), s -> cluster("n2")));
        assertEquals(0, conflict.expected());
        assertEquals(1, conflict.current().revision());
        assertEquals(before, Files.readString(state.resolve(SettingsStore.FILE_NAME)));
    }

    @Test
    void ofTwoAdminsWritingOverTheSameRevisionExactlyOneWins() throws Exception {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            var results = new java.util.ArrayList<java.util.concurrent.Future<Result>>();
            for (int i = 0; i < 8; i++) {
                String node = i % 2 == 0 ? "n1" : "n2";
                results.add(pool.submit(() -> store.update(OptionalLong.of(1), s -> cluster(node))));
            }
            int accepted = 0;
            int conflicts = 0;
            for (var f : results) {
                Result r = f.get();
                accepted += r instanceof Result.Accepted ? 1 : 0;
                conflicts += r instanceof Result.Conflict ? 1 : 0;
            }
            assertEquals(1, accepted);
            assertEquals(7, conflicts);
            assertEquals(2, store.current().revision());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void settingsWithProblemsAreNeverStored() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        String before = Files.readString(state.resolve(SettingsStore.FILE_NAME));
        Result.Refused refused = assertInstanceOf(Result.Refused.class, store.update(ANY, s -> cluster("n9")));
        assertEquals("lent[0]", refused.problems().get(0).key());
        assertEquals(1, store.current().revision());
        assertEquals(before, Files.readString(state.resolve(SettingsStore.FILE_NAME)));
    }

    @Test
    void aChangeToTheSameSettingsWritesNothing() throws IOException {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        long mtime = Files.getLastModifiedTime(state.resolve(SettingsStore.FILE_NAME))
                .toMillis();
        Result.Accepted same = assertInstanceOf(Result.Accepted.class, store.update(ANY, s -> cluster()));
        assertFalse(same.changed());
        assertEquals(1, same.document().revision());
        assertEquals(
                mtime,
                Files.getLastModifiedTime(state.resolve(SettingsStore.FILE_NAME))
                        .toMillis());
    }

    @Test
    void temporaryFilesOfAnInterruptedWriteAreRemovedAtOpen() throws IOException {
        SettingsStore.open(state).update(ANY, s -> cluster());
        Path leftover = state.resolve("settings.json.tmp-0123456789ab");
        Files.writeString(leftover, "{\"revision\": 9, \"sett");
        SettingsStore store = SettingsStore.open(state);
        assertFalse(Files.exists(leftover));
        assertEquals(1, store.current().revision());
    }

    @Test
    void anUnreadableStoreStopsTheLeaderRatherThanStartingOverEmpty() throws IOException {
        Files.writeString(state.resolve("settings.json"), "{\"revision\": 3, \"settings\": {\"enabled\": tr");
        IOException e = assertThrows(IOException.class, () -> SettingsStore.open(state));
        assertTrue(
                e.getMessage().startsWith("cannot read the stored settings in " + state.resolve("settings.json")),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .endsWith("restore the file from a backup; slurmlet never starts over from empty "
                                + "settings on its own"),
                e.getMessage());
    }

    /**
     * Two writes sent together, neither naming a revision: the leader's rules judge each under the
     * store's lock, against what the other stored, never both against the settings they both read.
     * The rule here (one lend at a time) depends on the settings a change is stored over.
     */
    @Test
    void twoWritesWithoutIfMatchAreEachJudgedAgainstWhatTheOtherStored() throws Exception {
        SettingsStore store = SettingsStore.open(state);
        store.update(ANY, s -> cluster());
        java.util.concurrent.CountDownLatch firstJudged = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch goOn = new java.util.concurrent.CountDownLatch(1);
        List<List<String>> judgedOver = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        SettingsStore.Admission oneLendAtATime = (current, next, checked) -> {
            judgedOver.add(current.lent());
            if (next.lent().equals(List.of("n1"))) {
                firstJudged.countDown();
                try {
                    goOn.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            return !current.lent().isEmpty()
                            && next.lent().size() > current.lent().size()
                    ? List.of(new io.slurmlet.model.settings.Problem("lent", "", "one lend at a time"))
                    : List.of();
        };
        java.util.function.UnaryOperator<SlurmSettings> lendN1 = s -> s.withLent(List.of("n1"));
        java.util.function.UnaryOperator<SlurmSettings> lendN2 = s -> {
            List<String> lent = new java.util.ArrayList<>(s.lent());
            lent.add("n2");
            return s.withLent(lent);
        };
        var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var first = pool.submit(() -> store.update(ANY, lendN1, oneLendAtATime));
            firstJudged.await();
            var second = pool.submit(() -> store.update(ANY, lendN2, oneLendAtATime));
            // The second waits for the first's store: its rules have not run yet.
            Thread.sleep(200); // a wait for something that must not happen: nothing to poll for
            assertEquals(List.of(List.of()), judgedOver);
            goOn.countDown();
            assertInstanceOf(Result.Accepted.class, first.get());
            Result.Refused refused = assertInstanceOf(Result.Refused.class, second.get());
            assertEquals("one lend at a time", refused.problems().get(0).message());
            assertEquals(List.of(List.of(), List.of("n1")), judgedOver, "the second judged over what the first stored");
            assertEquals(List.of("n1"), store.current().settings().lent());
            // The dry run judges by the same rules, and stores nothing.
            assertInstanceOf(Result.Refused.class, store.dryRun(ANY, lendN2, oneLendAtATime));
            assertEquals(2, store.current().revision());
        } finally {
            pool.shutdownNow();
        }
    }
}
