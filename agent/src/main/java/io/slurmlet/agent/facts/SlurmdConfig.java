package io.slurmlet.agent.facts;

import io.slurmlet.model.facts.NodeFacts;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Reads what {@code slurmd -C} prints about a machine (the NodeName line slurmd would register
 * with): {@code NodeName=gpu1 CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 ThreadsPerCore=2
 * RealMemory=2063000}. slurmd counts the machine as Slurm will, so these facts never disagree with it.
 */
public final class SlurmdConfig {

    private SlurmdConfig() {}

    /**
     * The facts of the machine that {@code output} describes, under {@code name} (the node's name
     * in the cluster, which may differ from the host name slurmd prints).
     */
    public static Optional<NodeFacts> parse(String name, String output) {
        for (String line : output.split("\n")) {
            if (!line.startsWith("NodeName=")) {
                continue;
            }
            Map<String, String> kv = new HashMap<>();
            for (String word : line.strip().split("\\s+")) {
                int eq = word.indexOf('=');
                if (eq > 0) {
                    kv.put(word.substring(0, eq), word.substring(eq + 1));
                }
            }
            try {
                int cpus = Integer.parseInt(kv.get("CPUs"));
                int boards = Integer.parseInt(kv.getOrDefault("Boards", "1"));
                int sockets = Integer.parseInt(kv.getOrDefault("SocketsPerBoard", kv.getOrDefault("Sockets", "1")));
                int cores = Integer.parseInt(kv.getOrDefault("CoresPerSocket", "1"));
                int threads = Integer.parseInt(kv.getOrDefault("ThreadsPerCore", "1"));
                long memory = Long.parseLong(kv.get("RealMemory"));
                return Optional.of(NodeFacts.builder(name)
                        .cpus(cpus)
                        .boards(boards)
                        .sockets(sockets)
                        .coresPerSocket(cores)
                        .threadsPerCore(threads)
                        .memoryMiB(memory)
                        .build());
            } catch (NumberFormatException | NullPointerException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
