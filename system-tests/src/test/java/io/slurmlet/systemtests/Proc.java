package io.slurmlet.systemtests;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A program the system tests run, to its end, with stdout and stderr read at once (neither can block it). */
final class Proc {

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private Proc() {}

    /** Runs {@code command} with stdin closed and {@code env} added (a null value removes a variable). */
    static Result run(List<String> command, Map<String, String> env, int timeoutSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        p.getOutputStream().close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errReader = reading(p.getErrorStream(), err);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread outReader = reading(p.getInputStream(), out);
        // The limit holds while the program keeps its output open too (an srun waiting for a node): it and what it
        // started (nsenter's child in a node) are ended, and the test fails saying so rather than hanging.
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " ran past " + timeoutSeconds + " s");
        }
        outReader.join(5_000);
        errReader.join(5_000);
        return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A started thread that copies {@code from} into {@code to} until the process closes it. */
    private static Thread reading(java.io.InputStream from, ByteArrayOutputStream to) {
        Thread t = new Thread(() -> {
            try {
                from.transferTo(to);
            } catch (IOException ignored) {
                // the process ended
            }
        });
        t.start();
        return t;
    }

    /** Removes a folder and everything in it. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
