package io.slurmlet.systemtests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The shell harness in system-tests/slurm: real Slurm of a Debian suite in a cached root. */
final class Harness {

    static final Path DIR = AgentProcess.ROOT.resolve("system-tests/slurm");

    record Result(int exit, String out, String err) {
        String describe() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Harness() {
    }

    static Result run(int timeoutSeconds, String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(DIR.resolve(script).toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        Thread errReader = new Thread(() -> {
            try {
                p.getErrorStream().transferTo(err);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        errReader.start();
        p.getInputStream().transferTo(out);
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(script + " " + String.join(" ", args) + " ran past " + timeoutSeconds + " s");
        }
        errReader.join(5_000);
        return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs and fails with everything the script printed unless it exits 0; returns its stdout. */
    static String ok(int timeoutSeconds, String script, String... args) throws IOException, InterruptedException {
        Result r = run(timeoutSeconds, script, args);
        if (r.exit() != 0) {
            throw new AssertionError(script + " " + String.join(" ", args) + " failed:\n" + r.describe());
        }
        return r.out();
    }
}
