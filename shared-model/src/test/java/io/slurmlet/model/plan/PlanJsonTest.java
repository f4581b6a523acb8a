package io.slurmlet.model.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A plan's JSON in pieces is byte for byte its JSON in one array, the shared texts one array for every plan. */
class PlanJsonTest {

    static NodePlan plan(String node, List<ManagedFile> files) {
        return NodePlan.of(node, Set.of(Role.COMPUTE)).withSlurm(new SlurmPlan(files, List.of(), List.of()));
    }

    @Test
    void thePiecesAreThePlansJsonAndItsDigestForEveryText() {
        for (String text : SharedTextTest.TEXTS) {
            for (boolean secret : new boolean[] {false, true}) {
                // Texts beside each other, and a short one between: the generator's separators come before each piece.
                NodePlan plan = plan(
                        "n1",
                        List.of(
                                new ManagedFile("/etc/slurm/slurm.conf", text, "0644", "root", "root", secret),
                                ManagedFile.config("/etc/slurm/cgroup.conf", "ConstrainCores=yes\n"),
                                ManagedFile.config("/etc/slurm/gres.conf", text),
                                ManagedFile.config("/etc/slurm/plugstack.conf", text)));
                byte[] whole = PlanDigest.json(plan);
                for (int i = 0; i < 2; i++) {
                    PlanJson pieces = PlanJson.of(plan);
                    assertArrayEquals(
                            whole,
                            pieces.bytes(),
                            "secret " + secret + ", " + text.substring(0, Math.min(40, text.length())));
                    assertEquals(whole.length, pieces.length());
                    assertEquals(PlanDigest.of(whole), pieces.digest());
                }
            }
        }
    }

    @Test
    void aSharedTextIsOneArrayInEveryPlanAndASecretIsInNone() throws Exception {
        String conf = SharedTextTest.big("NodeName=g[00000-09999] CPUs=192 Gres=gpu:h200:8\n") + System.nanoTime();
        String key = SharedTextTest.big("munge key bytes ") + System.nanoTime();
        List<PlanJson> plans = new java.util.ArrayList<>();
        for (String node : List.of("g00000", "g00001")) {
            plans.add(PlanJson.of(plan(
                    node,
                    List.of(
                            ManagedFile.config("/etc/slurm/slurm.conf", conf),
                            new ManagedFile("/etc/munge/munge.key", key, "0400", "munge", "munge", true)))));
        }
        byte[] quoted = new com.fasterxml.jackson.core.io.SerializedString(conf).asQuotedUTF8();
        byte[] first = plans.get(0).parts().stream()
                .filter(p -> p.length == quoted.length)
                .findFirst()
                .orElseThrow();
        byte[] second = plans.get(1).parts().stream()
                .filter(p -> p.length == quoted.length)
                .findFirst()
                .orElseThrow();
        assertSame(first, second, "slurm.conf's bytes are one array for both plans");
        assertArrayEquals(quoted, first);
        for (PlanJson p : plans) {
            // The secret is written into the plan's own bytes, never kept for another.
            assertTrue(
                    p.parts().stream()
                            .noneMatch(part -> part.length
                                    == new com.fasterxml.jackson.core.io.SerializedString(key).asQuotedUTF8().length),
                    "the munge key is not a piece of its own");
            assertEquals(
                    plans.indexOf(p) == 0 ? "g00000" : "g00001",
                    SettingsJson.STRICT.readValue(p.bytes(), NodePlan.class).node());
        }
        for (PlanJson p : plans) {
            // slurm.conf's text is in no other piece: a plan's own bytes are all of it but that one array.
            long copies = p.parts().stream()
                    .filter(part -> new String(part).contains("NodeName=g[00000-09999]"))
                    .count();
            assertEquals(1, copies, "slurm.conf's text is only in its shared piece");
        }
    }

    @Test
    void anAnswersEnvelopeGoesAroundThePieces() {
        NodePlan plan = plan("n1", List.of(ManagedFile.config("/etc/slurm/slurm.conf", SharedTextTest.TEXTS.get(2))));
        PlanJson answer = PlanJson.of(plan).between("{\"revision\":7,\"plan\":".getBytes(), "}".getBytes());
        assertEquals("{\"revision\":7,\"plan\":" + new String(PlanDigest.json(plan)) + "}", new String(answer.bytes()));
        assertEquals(answer.bytes().length, answer.length());
    }
}
