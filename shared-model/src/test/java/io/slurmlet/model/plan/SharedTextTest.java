package io.slurmlet.model.plan;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.slurmlet.model.api.SettingsJson;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A file's text escaped once for every plan that carries it: the JSON is byte for byte Jackson's own. */
class SharedTextTest {

    /** ManagedFile as Jackson writes a record of its fields, with no serializer of slurmlet's. */
    record Plain(@JsonProperty("path") String path, @JsonProperty("content") String content, @JsonProperty("mode") String mode,
                 @JsonProperty("owner") String owner, @JsonProperty("group") String group, @JsonProperty("secret") boolean secret) {
    }

    static String big(String line) {
        return line.repeat(2048 / line.length() + 1);
    }

    static final List<String> TEXTS = List.of("", "ClusterName=lab\n", big("NodeName=g[00000-00255] NodeAddr=10.0.0.[1-256] Gres=gpu:h200:8\n"),
            big("quotes \" and \\ backslashes, a tab\t, a form feed\f, a backspace\b, a carriage return\r\n"),
            big("control characters \u0000 \u0001 \u001f and delete \u007f\n"), big("non-ASCII: é, ü, 日本, an emoji \uD83D\uDE80, U+2028 \u2028 U+2029 \u2029\n"),
            big("a slash / and </script> and ]]> and \u00a0\n"));

    @Test
    void aFilesJsonIsJacksonsOwnForEveryTextTheFirstTimeAndEveryTimeAfter() throws Exception {
        for (String text : TEXTS) {
            for (boolean secret : new boolean[]{false, true}) {
                ManagedFile f = new ManagedFile("/etc/slurm/slurm.conf", text, "0644", "root", "root", secret);
                Plain plain = new Plain(f.path(), text, f.mode(), f.owner(), f.group(), secret);
                byte[] expected = SettingsJson.STRICT.writeValueAsBytes(plain);
                for (int i = 0; i < 3; i++) {
                    assertArrayEquals(expected, SettingsJson.STRICT.writeValueAsBytes(f), "bytes, " + i + ": " + text.substring(0, Math.min(40, text.length())));
                    assertEquals(SettingsJson.STRICT.writeValueAsString(plain), SettingsJson.STRICT.writeValueAsString(f), "characters, " + i);
                }
                assertEquals(f, SettingsJson.STRICT.readValue(SettingsJson.STRICT.writeValueAsBytes(f), ManagedFile.class));
            }
        }
    }

    @Test
    void aSecretsTextIsNeverKeptAndShortTextsAreWrittenAsTheyAre() throws Exception {
        int before = SharedText.kept();
        String secret = big("StoragePass=s3cr3t\n") + System.nanoTime();
        SettingsJson.STRICT.writeValueAsBytes(new ManagedFile("/etc/slurm/slurmdbd.conf", secret, "0600", "slurm", "slurm", true));
        SettingsJson.STRICT.writeValueAsBytes(ManagedFile.config("/etc/slurm/cgroup.conf", "short " + System.nanoTime()));
        assertEquals(before, SharedText.kept());
        SettingsJson.STRICT.writeValueAsBytes(ManagedFile.config("/etc/slurm/slurm.conf", big("x") + System.nanoTime()));
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
        String plain = new String(SettingsJson.STRICT.writeValueAsBytes(new Plain(conf.path(), conf.content(), "0644", "root", "root", false)),
                java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(true, new String(PlanDigest.json(plan), java.nio.charset.StandardCharsets.UTF_8).contains(plain));
    }
}
