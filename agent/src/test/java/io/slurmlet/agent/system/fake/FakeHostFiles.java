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

    @Override
    public Optional<String> read(Path path) {
        String text = own.get(path);
        if (text != null) {
            return Optional.of(text);
        }
        return files.stat(path).map(s -> new String(s.content(), StandardCharsets.UTF_8));
    }

    @Override
    public List<Path> list(Path dir) {
        return files.paths().stream().filter(p -> dir.equals(p.getParent())).sorted().toList();
    }
}
