package io.slurmlet.ctl;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Runs ctl's command line in this JVM as {@code main} would, with its own Vert.x, environment
 * and deadline, and captures exit code, stdout and stderr. Every run checks that the token
 * appears in neither.
 */
final class CtlRunner {

    /** What the token files of these tests hold: it must never be printed. */
    static final String TOKEN = "tok-7817-do-not-print-9f2c";

    /** One Vert.x for all tests, with the native transport the unix socket needs, as ctl's Quarkus has. */
    static final Vertx VERTX = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));

    record Result(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    final Map<String, String> env = new HashMap<>();
    Vertx vertx = VERTX;
    Duration timeout = Duration.ofSeconds(5);
    /** How often --wait asks again: short, so that tests of it are fast. */
    Duration pollInterval = Duration.ofMillis(10);
    /** What ctl reads for a file named -. */
    String stdin = "";
    /** Appended to every run's arguments (as --leader URL --token-file PATH). */
    final List<String> always = new ArrayList<>();

    CtlRunner() {
        // Keep this machine's own /etc/slurmlet/ctl.yaml out of the tests: an empty one instead.
        try {
            Path empty = Files.createTempFile("ctl", ".yaml");
            empty.toFile().deleteOnExit();
            env.put(LeaderResolver.CONFIG_ENV, empty.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A runner for the stub leader at {@code url}, with a token file in {@code dir}. */
    static CtlRunner against(String url, Path dir) {
        CtlRunner ctl = new CtlRunner();
        ctl.always.addAll(
                List.of("--leader", url, "--token-file", tokenFile(dir).toString()));
        return ctl;
    }

    static Path tokenFile(Path dir) {
        try {
            Path file = dir.resolve("admin.token");
            Files.writeString(file, "\n  " + TOKEN + "\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Result run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(always);
        return runExactly(all.toArray(String[]::new));
    }

    Result runExactly(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CtlCommand ctl = new CtlCommand(() -> vertx, env, timeout, pollInterval);
        ctl.stdin = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
        CommandLine cl = CtlCommandLine.configure(new CommandLine(ctl));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        Result r = new Result(exit, out.toString(), err.toString());
        assertFalse(r.out().contains(TOKEN), "the token is on stdout:\n" + r);
        assertFalse(r.err().contains(TOKEN), "the token is on stderr:\n" + r);
        return r;
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
