package io.slurmlet.agent.facts;

import io.slurmlet.agent.system.CommandFailed;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.model.facts.NodeFacts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the GPUs {@code nvidia-smi --query-gpu=name --format=csv,noheader} lists: one model name
 * a line, one line a GPU. nvidia-smi prints its own failures on stdout too, as
 * {@code NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. …}.
 */
public final class NvidiaSmi {

    /** The command that lists the GPUs. */
    public static final List<String> QUERY = List.of("nvidia-smi", "--query-gpu=name", "--format=csv,noheader");

    /**
     * The GPUs nvidia-smi found, and why it found none if it failed.
     *
     * @param gpus    one entry per model, with its count, in the order nvidia-smi first names them
     * @param problem what went wrong, for the operator; empty: nvidia-smi answered
     */
    public record Listing(List<NodeFacts.Gpus> gpus, Optional<String> problem) {
        public Listing {
            gpus = List.copyOf(gpus);
        }
    }

    private NvidiaSmi() {}

    /** The GPUs named in {@code csv}, one entry per distinct model, in first-seen order. */
    public static List<NodeFacts.Gpus> parse(String csv) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String line : csv.split("\n")) {
            String name = line.strip();
            if (!name.isEmpty()) {
                counts.merge(name, 1, Integer::sum);
            }
        }
        List<NodeFacts.Gpus> gpus = new ArrayList<>();
        counts.forEach((model, count) -> gpus.add(new NodeFacts.Gpus(model, count)));
        return gpus;
    }

    /**
     * What {@code result} of {@link #QUERY} says: its GPUs when it exited with 0 and printed only
     * names, else none and the problem.
     */
    public static Listing read(Commands.Result result) {
        if (!result.succeeded() || looksLikeFailure(result.stdout())) {
            String why = CommandFailed.exited(QUERY, result).getMessage();
            if (result.succeeded()) {
                why = "`%s` printed an error instead of GPU names: %s"
                        .formatted(CommandFailed.commandLine(QUERY), CommandFailed.firstLines(result.stdout()));
            }
            return new Listing(
                    List.of(),
                    Optional.of(
                            why + "; this machine's GPUs are not counted: "
                                    + "check the NVIDIA driver (run nvidia-smi by hand) and restart the agent or wait for its next look"));
        }
        return new Listing(parse(result.stdout()), Optional.empty());
    }

    /** nvidia-smi's error sentences, in case one comes with status 0. */
    private static boolean looksLikeFailure(String stdout) {
        return stdout.contains("NVIDIA-SMI has failed")
                || stdout.contains("No devices were found")
                || stdout.contains("Unable to determine the device handle");
    }
}
