package io.slurmlet.agent.system.linux;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@link Commands} on Linux, with {@link ProcessBuilder}. The program is looked up in a search
 * path (the agent's {@code PATH} plus the sbin folders, where slurmd lives); stdin is
 * {@code /dev/null}; the environment is made from nothing: {@link #environment()}: the {@code PATH} of
 * that search path and {@code LC_ALL=C} (so that programs print what the parsers expect), never the
 * agent's own, which may hold what the agent was started with (a join token from an old
 * {@code join.env}, a site's proxy credentials): a command that runs as a user leaves its
 * environment readable by that user. What a command needs beyond that it says in its argv
 * ({@code env DEBIAN_FRONTEND=noninteractive apt-get …}). stdout and stderr are read at the same time on two threads (a program
 * that fills one pipe while the agent waits on the other never blocks) and each is kept up to a
 * cap, with a note when more was printed. Past the deadline the program and every process it
 * started are killed with SIGKILL.
 *
 * <p>One gap remains: a program that exits while a process it started in the background (and
 * that is no longer its descendant) holds its output open is reported as past its deadline, and
 * that background process is left alone.
 */
public final class LinuxCommands implements Commands {

    /** Each of stdout and stderr is kept up to this many bytes. */
    public static final int OUTPUT_CAP = 1 << 20;

    /** How long to wait for the pipes to close once a killed program is gone. */
    private static final long DRAIN_AFTER_KILL_MS = 2_000;

    private static final List<Path> SBIN = List.of(Path.of("/usr/local/sbin"), Path.of("/usr/sbin"), Path.of("/sbin"));

    private final List<Path> searchPath;
    private final int outputCap;

    /** Looks programs up in the agent's {@code PATH} and the sbin folders; keeps 1 MiB of each output. */
    public LinuxCommands() {
        this(defaultSearchPath(System.getenv("PATH")), OUTPUT_CAP);
    }

    public LinuxCommands(List<Path> searchPath, int outputCap) {
        this.searchPath = List.copyOf(searchPath);
        this.outputCap = outputCap;
    }

    /** The folders of {@code path} (a {@code PATH} value), then the sbin folders it lacks. */
    static List<Path> defaultSearchPath(String path) {
        Set<Path> dirs = new LinkedHashSet<>();
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty()) {
                    dirs.add(Path.of(d));
                }
            }
        }
        dirs.addAll(SBIN);
        return List.copyOf(dirs);
    }

    @Override
    public Result run(List<String> argv, Duration deadline) throws CommandFailed {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("a command needs at least a program name");
        }
        Path program = locate(argv.get(0)).orElseThrow(() -> CommandFailed.notFound(argv, where(argv.get(0))));
        List<String> actual = new ArrayList<>(argv);
        actual.set(0, program.toString());
        ProcessBuilder pb =
                new ProcessBuilder(actual).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(environment());

        long start = System.nanoTime();
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            // The program vanished between the look-up and the start.
            if (String.valueOf(e.getMessage()).contains("error=2,")) {
                throw CommandFailed.notFound(argv, where(argv.get(0)));
            }
            throw CommandFailed.notStarted(argv, e);
        }
        String name = program.getFileName().toString();
        Drain out = new Drain(process.getInputStream(), outputCap, name + " stdout");
        Drain err = new Drain(process.getErrorStream(), outputCap, name + " stderr");
        try {
            if (!process.waitFor(deadline.toNanos(), TimeUnit.NANOSECONDS)) {
                killTree(process);
                out.await(DRAIN_AFTER_KILL_MS);
                err.await(DRAIN_AFTER_KILL_MS);
                throw CommandFailed.pastDeadline(argv, deadline, err.text(), "");
            }
            long leftMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline.toNanos() - (System.nanoTime() - start)));
            if (!out.await(leftMs) || !err.await(Math.max(1, leftMs))) {
                throw CommandFailed.pastDeadline(
                        argv,
                        deadline,
                        err.text(),
                        "it exited with status " + process.exitValue()
                                + " but a process it left in the background kept its output open");
            }
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            throw CommandFailed.interrupted(argv);
        }
        return new Result(process.exitValue(), out.text(), err.text());
    }

    /** The whole environment every command starts with: {@code PATH} (the search path) and {@code LC_ALL=C}. */
    public Map<String, String> environment() {
        return Map.of("PATH", searchPath.stream().map(Path::toString).collect(Collectors.joining(":")), "LC_ALL", "C");
    }

    /**
     * Where {@link #run} finds the program {@code name}: {@code name} itself when it holds a '/',
     * else the first executable of that name in the search path; empty: not installed.
     */
    public Optional<Path> locate(String name) {
        if (name.contains("/")) {
            Path p = Path.of(name);
            return Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
        }
        for (Path dir : searchPath) {
            Path p = dir.resolve(name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private String where(String name) {
        return name.contains("/")
                ? "that path"
                : searchPath.stream().map(Path::toString).collect(Collectors.joining(":"));
    }

    /** SIGKILL to the process and all its descendants, twice over, to catch children forked meanwhile. */
    private static void killTree(Process process) {
        for (int round = 0; round < 2; round++) {
            List<ProcessHandle> tree = new ArrayList<>();
            tree.add(process.toHandle());
            process.descendants().forEach(tree::add);
            tree.forEach(ProcessHandle::destroyForcibly);
        }
        try {
            process.waitFor(DRAIN_AFTER_KILL_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads one output stream to its end on a thread of its own, keeping the first {@code cap} bytes. */
    private static final class Drain implements Runnable {
        private final InputStream in;
        private final int cap;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final Thread thread;
        private long dropped;
        private IOException failure;

        Drain(InputStream in, int cap, String name) {
            this.in = in;
            this.cap = cap;
            this.thread = new Thread(this, "command " + name);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            byte[] buf = new byte[64 * 1024];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (this) {
                        int keep = (int) Math.max(0, Math.min(n, cap - kept.size()));
                        kept.write(buf, 0, keep);
                        dropped += n - keep;
                    }
                }
            } catch (IOException e) {
                synchronized (this) {
                    failure = e;
                }
            }
        }

        /** True when the stream ended within {@code ms} milliseconds. */
        boolean await(long ms) throws InterruptedException {
            thread.join(Math.max(1, ms));
            return !thread.isAlive();
        }

        synchronized String text() {
            String s = kept.toString(StandardCharsets.UTF_8);
            if (dropped > 0) {
                s += "\n[slurmlet: output cut after %d bytes; %d more bytes were not kept]\n".formatted(cap, dropped);
            }
            if (failure != null) {
                s += "\n[slurmlet: reading the output failed: %s]\n".formatted(failure.getMessage());
            }
            return s;
        }
    }
}
