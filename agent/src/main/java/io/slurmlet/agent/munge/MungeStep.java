package io.slurmlet.agent.munge;

import io.slurmlet.agent.reconcile.ManagedFiles;
import io.slurmlet.model.api.SettingsPreview.Action;
import io.slurmlet.model.api.SettingsPreview.DaemonChange;
import io.slurmlet.model.plan.MungeKey;
import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's munge key in /etc/munge/munge.key (0400, owned by munge) and munged enabled and
 * running. munged reads its key only at start: a new key restarts it. The key itself is never in
 * an outcome, a log or an error.
 */
public final class MungeStep implements Step {

    public static final Path KEY_FILE = Path.of("/etc/munge/munge.key");
    static final String MODE = "r--------";
    public static final String UNIT = "munge";

    private final Files files;
    private final Services services;
    private final Path keyFile;

    public MungeStep(Files files, Services services, Path root) {
        this.files = files;
        this.services = services;
        this.keyFile = ManagedFiles.under(root, KEY_FILE.toString());
    }

    /**
     * What munged is to do on a machine with a Slurm role: the one decision {@link #apply} acts on
     * and a settings preview shows. Started when it does not run; restarted for a new key, which
     * it reads only at start.
     *
     * @param running whether munged runs now
     * @param newKey  whether the key file is about to be written with another key (or made)
     */
    public static Optional<DaemonChange> effect(boolean running, boolean newKey) {
        if (!running) {
            return Optional.of(new DaemonChange(UNIT, Action.START, "munged does not run here yet"));
        }
        return newKey ? Optional.of(new DaemonChange(UNIT, Action.RESTART, "a new munge key, which munged reads only at start"))
                : Optional.empty();
    }

    @Override
    public String name() {
        return "munge";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        Optional<MungeKey> key = plan.mungeKey();
        if (key.isEmpty()) {
            return Outcome.unchanged(name(), "no Slurm role here: munge is left as it is");
        }
        List<String> done = new ArrayList<>();
        boolean newKey;
        try {
            Optional<Files.Stat> now = files.stat(keyFile);
            byte[] wanted = key.get().bytes();
            newKey = now.isEmpty() || !MessageDigest.isEqual(now.get().content(), wanted);
            boolean ownership = now.isPresent() && (!MODE.equals(now.get().mode())
                    || !"munge".equals(now.get().owner()) || !"munge".equals(now.get().group()));
            if (newKey || ownership) {
                files.write(keyFile, wanted, MODE, "munge", "munge");
                done.add(newKey ? "wrote the cluster's key to " + KEY_FILE : "made " + KEY_FILE + " 0400 munge:munge");
            }
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot write %s: %s".formatted(KEY_FILE, e.getMessage()));
        }
        try {
            if (!services.isEnabled(UNIT)) {
                services.enable(UNIT);
                done.add("enabled munge");
            }
            Optional<DaemonChange> effect = effect(services.isActive(UNIT), newKey);
            if (effect.isPresent() && effect.get().action() == Action.START) {
                services.start(UNIT);
                done.add("started munge");
            } else if (effect.isPresent()) {
                services.restart(UNIT);
                done.add("restarted munge for its new key");
            }
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
        return done.isEmpty()
                ? Outcome.unchanged(name(), "the key matches and munge runs")
                : Outcome.changed(name(), String.join("; ", done));
    }
}
