package io.slurmlet.agent.slurm;

import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which generation of slurm.jwks each of Slurm's daemons here loaded: the state directory's
 * {@code slurm/jwks-loaded} (root-only), a line per daemon, {@code UNIT WRITTEN PID AT LOADED}. A
 * daemon reads its keys only when its process starts, and from 24.05 on a reconfigure re-executes
 * it (a new process, whose PID it tells systemd); its exit code says nothing, since a re-execution
 * that fails on a bad file leaves the old process running with its old keys
 * (system-tests/slurm/FINDINGS.md, "auth/slurm and slurm.jwks"). So once a generation's file is
 * written, each daemon's main PID is noted; a daemon that runs with another PID since read that
 * file, if its process also started after the write (AT, in milliseconds since boot): systemd may
 * learn the PID of a re-execution that began before the write (the controller's reconfigure, an
 * instant before this machine wrote the file) only after it, and that process read the file before.
 * Only a daemon with a generation still to confirm is asked for its PID; nothing is asked where no
 * keys are written. Never a key: generations, PIDs and times only.
 */
final class JwksJournal {

    private final Files files;
    private final Services services;
    private final Path file;

    JwksJournal(Files files, Services services, Path stateDir) {
        this.files = files;
        this.services = services;
        this.file = stateDir.resolve("slurm").resolve("jwks-loaded");
    }

    /**
     * One daemon's line.
     *
     * @param written the generation of the last file written while it was planned here
     * @param pidAtWrite its main PID right after that write ("0": it did not run)
     * @param loaded the generation its process has loaded; 0 for none known
     */
    record Entry(long written, String pidAtWrite, long writtenAt, long loaded) {
        String line(String unit) {
            return "%s %d %s %d %d".formatted(unit, written, pidAtWrite, writtenAt, loaded);
        }
    }

    /** How much later than the write a process must have started to count: /proc gives starts in 10 ms ticks. */
    static final long TICK_MARGIN_MS = 20;

    /**
     * Right after slurm.jwks of {@code generation} was written: each of {@code units}' main PID now.
     * A daemon already noted for this generation keeps its line (the file written again for its
     * mode or owner alone holds the same keys).
     */
    void written(long generation, List<String> units) throws IOException, SystemException {
        Map<String, Entry> entries = read();
        long at = services.bootMillis();
        for (String unit : units) {
            Entry was = entries.get(unit);
            if (was == null || was.written() != generation) {
                entries.put(unit, new Entry(generation, services.mainPid(unit), at, was == null ? 0 : was.loaded()));
            }
        }
        write(entries);
    }

    /**
     * Each of {@code units} that runs, with the generation its process loaded: confirmed where its
     * main PID is another than right after the write (it started or re-executed since), and written
     * down; a daemon still on its old process says the generation it loaded before, if known.
     */
    Map<String, Long> loaded(List<String> units) throws IOException, SystemException {
        Map<String, Entry> entries = read();
        Map<String, Long> loaded = new TreeMap<>();
        boolean changed = false;
        for (String unit : units) {
            Entry e = entries.get(unit);
            if (e == null) {
                continue;
            }
            if (e.loaded() != e.written()) {
                String pid = services.mainPid(unit);
                if (!pid.equals("0") && !pid.equals(e.pidAtWrite()) && startedAfter(unit, e.writtenAt())) {
                    e = new Entry(e.written(), e.pidAtWrite(), e.writtenAt(), e.written());
                    entries.put(unit, e);
                    changed = true;
                }
            }
            if (e.loaded() > 0) {
                loaded.put(unit, e.loaded());
            }
        }
        if (changed) {
            write(entries);
        }
        return loaded;
    }

    /** Whether {@code unit}'s main process started after {@code writtenAt}; where its start cannot be read, by its PID alone. */
    private boolean startedAfter(String unit, long writtenAt) throws SystemException {
        java.util.OptionalLong started = services.mainStartedMillis(unit);
        return started.isEmpty() || started.getAsLong() > writtenAt + TICK_MARGIN_MS;
    }

    private Map<String, Entry> read() throws IOException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        Optional<Files.Stat> now = files.stat(file);
        if (now.isEmpty()) {
            return entries;
        }
        for (String line : new String(now.get().content(), StandardCharsets.UTF_8).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length != 5 || !SlurmDiff.DAEMONS.contains(f[0]) || !f[2].matches("[0-9]{1,10}")) {
                continue; // not ours: dropped; the next write says what is known
            }
            try {
                entries.put(f[0], new Entry(Long.parseLong(f[1]), f[2], Long.parseLong(f[3]), Long.parseLong(f[4])));
            } catch (NumberFormatException e) {
                // dropped, as above
            }
        }
        return entries;
    }

    private void write(Map<String, Entry> entries) throws IOException {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(entries).forEach((unit, e) -> text.append(e.line(unit)).append('\n'));
        byte[] wanted = text.toString().getBytes(StandardCharsets.UTF_8);
        Optional<Files.Stat> now = files.stat(file);
        if (now.isEmpty() || !Arrays.equals(now.get().content(), wanted)) {
            files.write(file, wanted, "rw-------", "root", "root");
        }
    }
}
