package io.slurmlet.model.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.slurmlet.model.api.SettingsJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A file's text escaped once for every plan that carries it: the JSON is byte for byte Jackson's own. */
class SharedTextTest {

    /** ManagedFile as Jackson's record serializer writes it, without slurmlet's: a field added to the record shows here. */
    @com.fasterxml.jackson.databind.annotation.JsonSerialize(
            using = com.fasterxml.jackson.databind.JsonSerializer.None.class)
    abstract static class Plain {}

    static final com.fasterxml.jackson.databind.ObjectMapper PLAIN =
            SettingsJson.STRICT.copy().addMixIn(ManagedFile.class, Plain.class);

    static String big(String line) {
        return line.repeat(2048 / line.length() + 1);
    }

    static final List<String> TEXTS = List.of(
            "",
            "ClusterName=lab\n",
            big("NodeName=g[00000-00255] NodeAddr=10.0.0.[1-256] Gres=gpu:h200:8\n"),
            big("quotes \" and \\ backslashes, a tab\t, a form feed\f, a backspace\b, a carriage return\r\n"),
            big("control characters \u0000 \u0001 \u001f and delete \u007f\n"),
            big("non-ASCII: é, ü, 日本, an emoji \uD83D\uDE80, U+2028 \u2028 U+2029 \u2029\n"),
            big("a slash / and </script> and ]]> and \u00a0\n"));

    @Test
    void aFilesJsonIsJacksonsOwnForEveryTextTheFirstTimeAndEveryTimeAfter() throws Exception {
        for (String text : TEXTS) {
            for (boolean secret : new boolean[] {false, true}) {
                ManagedFile f = new ManagedFile("/etc/slurm/slurm.conf", text, "0644", "root", "root", secret);
                byte[] expected = PLAIN.writeValueAsBytes(f);
                for (int i = 0; i < 3; i++) {
                    assertArrayEquals(
                            expected,
                            SettingsJson.STRICT.writeValueAsBytes(f),
                            "bytes, " + i + ": " + text.substring(0, Math.min(40, text.length())));
                    assertEquals(
                            PLAIN.writeValueAsString(f), SettingsJson.STRICT.writeValueAsString(f), "characters, " + i);
                    assertEquals(
                            PLAIN.writerWithDefaultPrettyPrinter().writeValueAsString(f),
                            SettingsJson.STRICT.writerWithDefaultPrettyPrinter().writeValueAsString(f),
                            "indented, " + i);
                }
                assertEquals(
                        f, SettingsJson.STRICT.readValue(SettingsJson.STRICT.writeValueAsBytes(f), ManagedFile.class));
            }
        }
    }

    @Test
    void aSecretsTextIsNeverKeptAndShortTextsAreWrittenAsTheyAre() throws Exception {
        int before = SharedText.kept();
        String secret = big("StoragePass=s3cr3t\n") + System.nanoTime();
        SettingsJson.STRICT.writeValueAsBytes(
                new ManagedFile("/etc/slurm/slurmdbd.conf", secret, "0600", "slurm", "slurm", true));
        SettingsJson.STRICT.writeValueAsBytes(
                ManagedFile.config("/etc/slurm/cgroup.conf", "short " + System.nanoTime()));
        assertEquals(before, SharedText.kept());
        SettingsJson.STRICT.writeValueAsBytes(
                ManagedFile.config("/etc/slurm/slurm.conf", big("x") + System.nanoTime()));
        assertEquals(before + 1, SharedText.kept(), "a long text that is no secret is kept");
    }

    /** What a plan's digest covers is unchanged: the JSON of a plan is the JSON of its parts as Jackson writes them. */
    @Test
    void aPlansDigestIsTheSameWhetherItsTextsWereKeptOrNot() throws Exception {
        ManagedFile conf = ManagedFile.config("/etc/slurm/slurm.conf", TEXTS.get(2));
        SlurmPlan slurm = new SlurmPlan(List.of(conf), List.of(), List.of());
        NodePlan plan = NodePlan.of("n1", java.util.Set.of(Role.COMPUTE)).withSlurm(slurm);
        String first = PlanDigest.of(plan);
        assertEquals(first, PlanDigest.of(SettingsJson.STRICT.readValue(PlanDigest.json(plan), NodePlan.class)));
        assertArrayEquals(PLAIN.writeValueAsBytes(plan), PlanDigest.json(plan), "the plan's JSON is Jackson's own");
    }
}
