package io.slurmlet.ctl;

import static io.slurmlet.ctl.CtlRunner.map;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** flag > environment > ctl.yaml > the leader's socket and the default token file. */
class LeaderResolverTest {

    @TempDir
    Path dir;

    private Path yaml(String text) throws IOException {
        Path file = dir.resolve("ctl.yaml");
        Files.writeString(file, text);
        return file;
    }

    private LeaderResolver resolver(Map<String, String> env) {
        return new LeaderResolver(env, dir.resolve("no-default-token"));
    }

    @Test
    void theFlagWinsOverEverything() throws IOException {
        Path config = yaml("leader: http://from-yaml:1\ntoken_file: /yaml.token\n");
        var r = resolver(map(
                        LeaderResolver.LEADER_ENV,
                        "http://from-env:2",
                        LeaderResolver.TOKEN_FILE_ENV,
                        "/env.token",
                        LeaderResolver.CONFIG_ENV,
                        config.toString()))
                .resolve(LeaderAddress.parse("http://from-flag:3"), Path.of("/flag.token"));
        assertEquals("http://from-flag:3", r.leader().toString());
        assertEquals("--leader", r.leaderSource());
        assertEquals(Optional.of(Path.of("/flag.token")), r.tokenFile());
        assertEquals("--token-file", r.tokenSource());
        assertEquals("", r.leaderOrigin());
    }

    @Test
    void theEnvironmentWinsOverCtlYaml() throws IOException {
        Path config = yaml("leader: http://from-yaml:1\ntoken_file: /yaml.token\n");
        var r = resolver(map(
                        LeaderResolver.LEADER_ENV,
                        "http://from-env:2",
                        LeaderResolver.TOKEN_FILE_ENV,
                        "/env.token",
                        LeaderResolver.CONFIG_ENV,
                        config.toString()))
                .resolve(null, null);
        assertEquals("http://from-env:2", r.leader().toString());
        assertEquals(LeaderResolver.LEADER_ENV, r.leaderSource());
        assertEquals(" (from SLURMLET_LEADER)", r.leaderOrigin());
        assertEquals(Optional.of(Path.of("/env.token")), r.tokenFile());
        assertEquals(LeaderResolver.TOKEN_FILE_ENV, r.tokenSource());
    }

    @Test
    void ctlYamlWinsOverTheDefaults() throws IOException {
        Path config = yaml("# where the leader is\nleader: https://head1:7817\ntoken_file: /root/slurmlet.token\n");
        var r = resolver(map(LeaderResolver.CONFIG_ENV, config.toString())).resolve(null, null);
        assertEquals("https://head1:7817", r.leader().toString());
        assertEquals(config.toString(), r.leaderSource());
        assertEquals(Optional.of(Path.of("/root/slurmlet.token")), r.tokenFile());
        assertEquals(config.toString(), r.tokenSource());
    }

    @Test
    void eachValueComesFromTheFirstPlaceThatNamesIt() throws IOException {
        Path config = yaml("token_file: /yaml.token\n");
        var r = resolver(map(
                        LeaderResolver.LEADER_ENV, "http://from-env:2", LeaderResolver.CONFIG_ENV, config.toString()))
                .resolve(null, null);
        assertEquals("http://from-env:2", r.leader().toString());
        assertEquals(Optional.of(Path.of("/yaml.token")), r.tokenFile());
    }

    @Test
    void withNothingNamedItIsTheLeadersSocketAndNoToken() throws IOException {
        Path config = yaml("");
        var r = resolver(map(LeaderResolver.CONFIG_ENV, config.toString(), LeaderResolver.LEADER_ENV, "  "))
                .resolve(null, null);
        assertEquals("unix:/run/slurmlet/leader.sock", r.leader().toString());
        assertEquals(LeaderResolver.DEFAULT_SOURCE, r.leaderSource());
        assertEquals(Optional.empty(), r.tokenFile());
    }

    @Test
    void theDefaultTokenFileIsUsedWhenReadable() throws IOException {
        Path token = Files.writeString(dir.resolve("admin.token"), "abc\n");
        var r = new LeaderResolver(map(LeaderResolver.CONFIG_ENV, yaml("").toString()), token).resolve(null, null);
        assertEquals(Optional.of(token), r.tokenFile());
        assertEquals(LeaderResolver.DEFAULT_SOURCE, r.tokenSource());
    }

    @Test
    void ctlYamlIsNotReadWhenTheFlagsSayEverything() {
        var r = resolver(map(
                        LeaderResolver.CONFIG_ENV, dir.resolve("missing.yaml").toString()))
                .resolve(LeaderAddress.parse("http://h:1"), Path.of("/t"));
        assertEquals("http://h:1", r.leader().toString());
    }

    @Test
    void aConfigNamedByTheEnvironmentMustExist() {
        String missing = dir.resolve("missing.yaml").toString();
        var e = assertThrows(
                CtlException.class,
                () -> resolver(map(LeaderResolver.CONFIG_ENV, missing)).resolve(null, null));
        assertEquals(
                "cannot read ctl's config " + missing + " (from SLURMLET_CTL_CONFIG): no such file", e.getMessage());
    }

    @Test
    void anUnknownKeyInCtlYamlIsRefused() throws IOException {
        Path config = yaml("leadr: http://h:1\n");
        var e = assertThrows(
                CtlException.class,
                () -> resolver(map(LeaderResolver.CONFIG_ENV, config.toString()))
                        .resolve(null, null));
        assertEquals(
                "ctl's config " + config + " has an unknown key 'leadr': the keys are leader and token_file",
                e.getMessage());
    }

    @Test
    void brokenYamlIsRefusedNamingTheFile() throws IOException {
        Path config = yaml("leader: [http://h:1\n");
        var e = assertThrows(
                CtlException.class,
                () -> resolver(map(LeaderResolver.CONFIG_ENV, config.toString()))
                        .resolve(null, null));
        assertTrue(e.getMessage().startsWith("ctl's config " + config + " is not valid YAML"), e.getMessage());
        Path list = yaml("- leader\n");
        e = assertThrows(
                CtlException.class,
                () -> resolver(map(LeaderResolver.CONFIG_ENV, list.toString())).resolve(null, null));
        assertTrue(e.getMessage().contains("is not a YAML mapping"), e.getMessage());
    }

    @Test
    void aBadAddressSaysWhereItCameFrom() throws IOException {
        var e = assertThrows(
                CtlException.class,
                () -> resolver(map(
                                LeaderResolver.LEADER_ENV,
                                "head1:7817",
                                LeaderResolver.CONFIG_ENV,
                                yaml("").toString()))
                        .resolve(null, null));
        assertTrue(
                e.getMessage().startsWith("the leader's address in SLURMLET_LEADER is unusable: 'head1:7817'"),
                e.getMessage());
        Path config = yaml("leader: 7817\n");
        e = assertThrows(
                CtlException.class,
                () -> resolver(map(LeaderResolver.CONFIG_ENV, config.toString()))
                        .resolve(null, null));
        assertTrue(e.getMessage().contains("leader is not a string"), e.getMessage());
    }

    @Test
    void aTokenIsTheFilesContentStripped() throws IOException {
        Path token = Files.writeString(dir.resolve("t"), "\n  abc-123\t\n");
        assertEquals("abc-123", LeaderResolver.readToken(token, "--token-file"));
    }

    @Test
    void anUnusableTokenFileIsRefusedWithoutShowingItsContent() throws IOException {
        Path missing = dir.resolve("missing.token");
        var e = assertThrows(CtlException.class, () -> LeaderResolver.readToken(missing, "--token-file"));
        assertEquals("cannot read the token file " + missing + " (from --token-file): no such file", e.getMessage());

        Path empty = Files.writeString(dir.resolve("empty.token"), " \n");
        e = assertThrows(CtlException.class, () -> LeaderResolver.readToken(empty, LeaderResolver.TOKEN_FILE_ENV));
        assertTrue(
                e.getMessage().startsWith("the token file " + empty + " (from SLURMLET_TOKEN_FILE) is empty"),
                e.getMessage());

        Path two = Files.writeString(dir.resolve("two.token"), "secret-one secret-two\n");
        e = assertThrows(CtlException.class, () -> LeaderResolver.readToken(two, "--token-file"));
        assertTrue(e.getMessage().contains("holds more than one token"), e.getMessage());
        assertTrue(!e.getMessage().contains("secret"), e.getMessage());
    }
}
