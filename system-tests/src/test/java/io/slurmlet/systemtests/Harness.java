package io.slurmlet.systemtests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The shell harness in system-tests/slurm: real Slurm of a Debian suite in a cached root. */
final class Harness {

    static final Path DIR = AgentProcess.ROOT.resolve("system-tests/slurm");

    private Harness() {}

    static Proc.Result run(int timeoutSeconds, String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(DIR.resolve(script).toString());
        command.addAll(List.of(args));
        return Proc.run(command, Map.of(), timeoutSeconds);
    }

    /** Runs and fails with everything the script printed unless it exits 0; returns its stdout. */
    static String ok(int timeoutSeconds, String script, String... args) throws IOException, InterruptedException {
        Proc.Result r = run(timeoutSeconds, script, args);
        if (r.exit() != 0) {
            throw new AssertionError(script + " " + String.join(" ", args) + " failed:\n" + r);
        }
        return r.out();
    }
}
