package io.slurmlet.agent.slurm;

import io.slurmlet.model.plan.NodePlan;
import io.slurmlet.model.plan.Role;
import io.slurmlet.agent.reconcile.Outcome;
import io.slurmlet.agent.reconcile.Step;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.agent.system.Files;
import io.slurmlet.agent.system.Services;
import io.slurmlet.agent.system.SystemException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Slurm's files as the plan has them, and slurmctld / slurmd enabled and running. A change Slurm
 * takes with {@code scontrol reconfigure} is applied so, issued once by the controller's agent; a
 * daemon is restarted only where Slurm needs it (keys it reads only at start, gres.conf and
 * cgroup.conf for slurmd). Nothing is stopped: a daemon the plan leaves out keeps running, and no
 * job is touched.
 */
public final class SlurmStep implements Step {

    /** slurm.conf keys a running daemon does not take from {@code scontrol reconfigure}. */
    static final Set<String> RESTART_KEYS = Set.of("authtype", "credtype", "slurmctldhost", "controlmachine",
            "slurmctldport", "slurmdport", "selecttype", "selecttypeparameters", "proctracktype", "taskplugin",
            "prologflags", "statesavelocation", "slurmdspooldir", "slurmuser", "grestypes", "switchtype");

    static final String MODE = "rw-r--r--";
    static final Duration RECONFIGURE_DEADLINE = Duration.ofSeconds(60);

    private final Files files;
    private final Services services;
    private final Commands commands;
    private final Path root;

    public SlurmStep(Files files, Services services, Commands commands, Path root) {
        this.files = files;
        this.services = services;
        this.commands = commands;
        this.root = root;
    }

    @Override
    public String name() {
        return "slurm";
    }

    @Override
    public Outcome apply(NodePlan plan) {
        if (plan.files().isEmpty()) {
            return Outcome.unchanged(name(), plan.roles().isEmpty()
                    ? "no Slurm role here" : "Slurm's files wait for the controller's Slurm version");
        }
        List<String> done = new ArrayList<>();
        Map<String, String> before = new TreeMap<>();
        try {
            for (var file : plan.files().entrySet()) {
                Path path = root.resolve(file.getKey().substring(1));
                byte[] wanted = file.getValue().getBytes(StandardCharsets.UTF_8);
                Optional<Files.Stat> now = files.stat(path);
                boolean same = now.isPresent() && Arrays.equals(now.get().content(), wanted) && MODE.equals(now.get().mode())
                        && "root".equals(now.get().owner());
                if (!same) {
                    before.put(Path.of(file.getKey()).getFileName().toString(),
                            now.map(s -> new String(s.content(), StandardCharsets.UTF_8)).orElse(""));
                    files.write(path, wanted, MODE, "root", "root");
                }
            }
        } catch (IOException e) {
            return Outcome.failed(name(), "cannot write Slurm's files: " + e.getMessage());
        }
        if (!before.isEmpty()) {
            done.add("wrote " + String.join(", ", before.keySet()));
        }
        boolean restartAll = before.containsKey("slurm.conf")
                && needsRestart(before.get("slurm.conf"), plan.files().get("/etc/slurm/slurm.conf"));
        boolean restartSlurmd = restartAll || before.containsKey("gres.conf") || before.containsKey("cgroup.conf");
        boolean reconfigure = false;
        try {
            for (String unit : plan.services()) {
                if (!unit.equals("slurmctld") && !unit.equals("slurmd")) {
                    continue;
                }
                if (!services.isEnabled(unit)) {
                    services.enable(unit);
                    done.add("enabled " + unit);
                }
                if (!services.isActive(unit)) {
                    services.start(unit);
                    done.add("started " + unit);
                } else if (before.isEmpty()) {
                    continue;
                } else if (unit.equals("slurmctld") ? restartAll : restartSlurmd) {
                    services.restart(unit);
                    done.add("restarted " + unit + " (a change it reads only at start)");
                } else if (unit.equals("slurmctld")) {
                    reconfigure = true;
                }
            }
            if (reconfigure && plan.runs(Role.CONTROLLER)) {
                commands.runChecked(List.of("scontrol", "reconfigure"), RECONFIGURE_DEADLINE);
                done.add("scontrol reconfigure");
            }
        } catch (SystemException e) {
            return Outcome.failed(name(), e.getMessage());
        }
        return done.isEmpty()
                ? Outcome.unchanged(name(), "Slurm's files match and its daemons run")
                : Outcome.changed(name(), String.join("; ", done));
    }

    /** Whether the change from {@code old} to {@code next} touches a key a daemon reads only at start. */
    static boolean needsRestart(String old, String next) {
        return !restartLines(old).equals(restartLines(next));
    }

    private static Map<String, String> restartLines(String conf) {
        Map<String, String> lines = new TreeMap<>();
        for (String line : conf.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith("#")) {
                String key = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
                if (RESTART_KEYS.contains(key)) {
                    lines.put(key, line.substring(eq + 1).strip());
                }
            }
        }
        return lines;
    }
}
