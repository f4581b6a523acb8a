package io.slurmlet.agent.slurm;

import io.slurmlet.agent.slurm.SlurmDiff.Wanted;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;
import io.slurmlet.model.api.SettingsPreview;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The slurm step's journal of what it owes the daemons: the state directory's {@code slurm/owed},
 * one {@link Owed} a line (root-only). What a pass decides to do to the daemons is written down
 * before the files are: an agent killed between the files and the restart finds, when it comes
 * back, the restart it owes, though the files then match. Once the files are written, each owed
 * restart notes the daemon's systemd invocation; the restart is done when the unit has another
 * ({@link Services#invocation}: whoever restarted it, it read the new files). An owed restart
 * without one is done again. A reconfigure is done once {@code scontrol reconfigure} succeeded.
 * Nothing of this is kept in memory.
 */
final class OwedJournal {

    private final Files files;
    private final Services services;
    /** The restarts and the controller's reconfigure decided and not yet done. */
    private final Path file;

    /** @param stateDir where the daemons' owed restarts are written down */
    OwedJournal(Files files, Services services, Path stateDir) {
        this.files = files;
        this.services = services;
        this.file = stateDir.resolve("slurm").resolve("owed");
    }

    /** What the file says, by unit and action; the error says which file could not be read. */
    Map<String, Owed> look() throws IOException {
        try {
            return read();
        } catch (IOException e) {
            throw new IOException("cannot read what the daemons are owed (%s): %s".formatted(file, e.getMessage()), e);
        }
    }

    /**
     * Of what was owed, what still is: the plan's daemons only, and no restart of a daemon whose
     * unit has had another invocation since the new files were written (someone, or an earlier pass,
     * restarted it).
     */
    Map<String, Owed> stillOwed(Map<String, Owed> owed, Wanted wanted) throws SystemException {
        Map<String, Owed> still = new LinkedHashMap<>();
        for (Owed o : owed.values()) {
            String unit = o.change().unit();
            if (!wanted.services().contains(unit) || !SlurmDiff.DAEMONS.contains(unit)) {
                continue;
            }
            if (o.change().action() == SettingsPreview.Action.RESTART
                    && !o.invocation().isEmpty()
                    && !o.invocation().equals(services.invocation(unit))) {
                continue;
            }
            still.put(o.key(), o);
        }
        return still;
    }

    /** Whether the file says other than {@code owed}: more, or what cannot be read, or less. */
    boolean saysOtherThan(Map<String, Owed> owed) throws IOException {
        return !Arrays.equals(text(owed), bytes());
    }

    /** Writes down {@code owed}, as a pass decided it before the files. */
    void record(List<Owed> owed) throws IOException {
        Map<String, Owed> next = new LinkedHashMap<>();
        owed.forEach(o -> next.put(o.key(), o));
        write(next);
    }

    /** Each owed restart without an invocation gets the daemon's current one, once the new files are written. */
    void noteInvocations() throws IOException, SystemException {
        Map<String, Owed> noted = new LinkedHashMap<>();
        for (var e : read().entrySet()) {
            Owed o = e.getValue();
            noted.put(
                    e.getKey(),
                    o.change().action() == SettingsPreview.Action.RESTART
                                    && o.invocation().isEmpty()
                            ? new Owed(
                                    o.change(), services.invocation(o.change().unit()))
                            : o);
        }
        write(noted);
    }

    /** Crosses off what was just done; a failure to write it down means it may be done once more, never skipped. */
    void done(String key) throws IOException {
        Map<String, Owed> owed = read();
        if (owed.remove(key) != null) {
            try {
                write(owed);
            } catch (IOException e) {
                throw new IOException(
                        "could not write down in %s what is done (%s): it may be done once more"
                                .formatted(file, e.getMessage()),
                        e);
            }
        }
    }

    /** The owed file's content for {@code owed}; empty for none (no file). */
    private static byte[] text(Map<String, Owed> owed) {
        StringBuilder text = new StringBuilder();
        owed.values().forEach(o -> text.append(o.line()).append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The owed file's content now; empty when there is none. */
    private byte[] bytes() throws IOException {
        return files.stat(file).map(Files.Stat::content).orElse(new byte[0]);
    }

    /** What the owed file says, by unit and action; a line that cannot be read is dropped (the files' diff decides again). */
    private Map<String, Owed> read() throws IOException {
        Map<String, Owed> owed = new LinkedHashMap<>();
        Optional<Files.Stat> now = files.stat(file);
        if (now.isPresent()) {
            new String(now.get().content(), StandardCharsets.UTF_8)
                    .lines()
                    .map(Owed::parse)
                    .flatMap(Optional::stream)
                    .forEach(o -> owed.put(o.key(), o));
        }
        return owed;
    }

    /** Writes down {@code next} (atomically, root-only) unless the file says just that; none owed: no file. */
    private void write(Map<String, Owed> next) throws IOException {
        byte[] wanted = text(next);
        Optional<Files.Stat> now = files.stat(file);
        if (next.isEmpty()) {
            if (now.isPresent()) {
                files.delete(file);
            }
        } else if (now.isEmpty() || !Arrays.equals(now.get().content(), wanted)) {
            files.write(file, wanted, "rw-------", "root", "root");
        }
    }
}
