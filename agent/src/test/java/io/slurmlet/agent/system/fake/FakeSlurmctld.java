package io.slurmlet.agent.system.fake;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * slurmctld's node table as {@code scontrol} and {@code squeue} show and change it, as 22.05 does:
 * {@code state=drain reason=R} drains, {@code state=idle} and {@code state=resume} resume and clear
 * the reason, {@code reason=R} alone sets the reason. Each node is idle, or allocated with jobs.
 * Every other command goes to {@link #others}.
 */
public final class FakeSlurmctld implements Commands {

    /** One node: its state (IDLE, ALLOCATED, with +DRAIN), its reason, its jobs ("12 of alice"). */
    static final class Node {
        String state;
        String reason = "";
        final List<String> jobs = new ArrayList<>();

        Node(String state) {
            this.state = state;
        }
    }

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    public final FakeCommands others;

    public FakeSlurmctld(FakeCommands others) {
        this.others = others;
    }

    /** A node slurmctld knows, as its slurm.conf line brings it: drained by slurmlet's reason. */
    public FakeSlurmctld node(String name, String reason) {
        Node n = new Node("IDLE+DRAIN");
        n.reason = reason;
        nodes.put(name, n);
        return this;
    }

    /** A job running on {@code name}. */
    public FakeSlurmctld job(String name, String job) {
        Node n = nodes.get(name);
        n.jobs.add(job);
        n.state = n.state.replace("IDLE", "ALLOCATED");
        return this;
    }

    @Override
    public Result run(List<String> argv, Duration deadline) throws CommandFailed {
        if (argv.equals(List.of("scontrol", "-o", "show", "node"))) {
            StringBuilder out = new StringBuilder();
            nodes.forEach((name, n) -> out.append("NodeName=%s Arch=x86_64 State=%s Partitions=gpu%s\n"
                    .formatted(
                            name,
                            n.state,
                            n.reason.isEmpty() ? "" : " Reason=" + n.reason + " [slurm@2026-12-01T00:00:00]")));
            return Result.ok(out.toString());
        }
        if (argv.size() > 1 && argv.get(0).equals("squeue") && argv.contains("-p")) {
            // The one partition: every job is in it.
            StringBuilder out = new StringBuilder();
            nodes.values()
                    .forEach(
                            n -> n.jobs.forEach(j -> out.append(j.split(" ")[0]).append('\n')));
            return Result.ok(out.toString());
        }
        if (argv.size() > 1 && argv.get(0).equals("squeue")) {
            StringBuilder out = new StringBuilder();
            nodes.forEach((name, n) -> n.jobs.forEach(j -> out.append(j.split(" ")[0])
                    .append('|')
                    .append(j.split(" ")[2])
                    .append('|')
                    .append(name)
                    .append('\n')));
            return Result.ok(out.toString());
        }
        if (argv.size() > 2 && argv.get(0).equals("scontrol") && argv.get(1).equals("update")) {
            for (String name :
                    io.slurmlet.agent.slurm.HostList.expand(argv.get(2).substring("nodename=".length()))) {
                Node n = nodes.get(name);
                if (n == null) {
                    return new Result(1, "", "scontrol: error: Invalid node name specified");
                }
                for (String set : argv.subList(3, argv.size())) {
                    if (set.equals("state=drain")) {
                        n.state = n.state.contains("+DRAIN") ? n.state : n.state + "+DRAIN";
                    } else if (set.equals("state=idle") || set.equals("state=resume")) {
                        n.state = n.state.replace("+DRAIN", "");
                        n.reason = "";
                    } else if (set.startsWith("reason=")) {
                        n.reason = set.substring("reason=".length());
                    }
                }
            }
            return Result.ok("");
        }
        return others.run(argv, deadline);
    }
}
