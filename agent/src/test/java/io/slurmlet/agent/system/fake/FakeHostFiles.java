package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.HostFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The machine's own files (/proc, unit folders) as a {@link FakeFiles} holds them, with texts of its own for /proc. */
public final class FakeHostFiles implements HostFiles {

    private final FakeFiles files;
    private final Map<Path, String> own = new TreeMap<>();

    public FakeHostFiles(FakeFiles files) {
        this.files = files;
    }

    /** {@code path} reads {@code text} (a file of /proc, which nothing writes). */
    public FakeHostFiles with(String path, String text) {
        own.put(Path.of(path), text);
        return this;
    }

    /** A slurmstepd of {@code job} runs as process {@code pid}. */
    public FakeHostFiles stepOf(int pid, String job) {
        return with("/proc/" + pid + "/comm", "slurmstepd\n")
                .with("/proc/" + pid + "/cmdline", "slurmstepd: [" + job + ".batch]\0")
                .with("/proc/" + pid + "/status", "Name:\tslurmstepd\nUid:\t0\t0\t0\t0\n");
    }

    /** Process {@code pid} has ended. */
    public FakeHostFiles ended(int pid) {
        own.keySet().removeIf(p -> p.startsWith("/proc/" + pid));
        return this;
    }

    @Override
    public Optional<String> read(Path path) {
        String text = own.get(path);
        if (text != null) {
            return Optional.of(text);
        }
        return files.stat(path).map(s -> new String(s.content(), StandardCharsets.UTF_8));
    }

    @Override
    public Optional<byte[]> bytes(Path path) {
        String text = own.get(path);
        return text != null
                ? Optional.of(text.getBytes(StandardCharsets.UTF_8))
                : files.stat(path).map(s -> s.content());
    }

    @Override
    public List<Path> list(Path dir) {
        java.util.Set<Path> all = new java.util.TreeSet<>(files.paths());
        all.addAll(own.keySet());
        java.util.Set<Path> entries = new java.util.TreeSet<>();
        for (Path p : all) {
            for (Path at = p; at.getParent() != null; at = at.getParent()) {
                if (dir.equals(at.getParent())) {
                    entries.add(at);
                }
            }
        }
        return List.copyOf(entries);
    }
}
