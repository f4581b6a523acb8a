package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.Files;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Files in memory, with a log of every write (path, mode, owner; never the content). */
public final class FakeFiles implements Files {

    private final Map<Path, Stat> files = new HashMap<>();
    private final Set<Path> failing = new HashSet<>();
    public final List<String> log = new ArrayList<>();

    public FakeFiles put(Path path, byte[] content, String mode, String owner, String group) {
        files.put(path, new Stat(content.clone(), mode, owner, group));
        return this;
    }

    /** Writes to {@code path} fail, as on a full or read-only disk. */
    public FakeFiles failWrites(Path path) {
        failing.add(path);
        return this;
    }

    /** Every file's path. */
    public Set<Path> paths() {
        return Set.copyOf(files.keySet());
    }

    @Override
    public Optional<Stat> stat(Path path) {
        Stat s = files.get(path);
        return s == null
                ? Optional.empty()
                : Optional.of(new Stat(s.content().clone(), s.mode(), s.owner(), s.group()));
    }

    @Override
    public void write(Path path, byte[] content, String mode, String owner, String group) throws IOException {
        if (failing.contains(path)) {
            throw new IOException("No space left on device");
        }
        log.add("write %s %s %s:%s".formatted(path, mode, owner, group));
        files.put(path, new Stat(content.clone(), mode, owner, group));
    }

    @Override
    public void delete(Path path) {
        if (files.remove(path) != null) {
            log.add("delete " + path);
        }
    }
}
