package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.facts.NvidiaSmi;
import io.slurmlet.agent.facts.SlurmdConfig;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.agent.system.Commands;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * slurmlet against what a real NVIDIA H200 machine printed (dev/gpu-check, 2026-12-04): the facts
 * the agent reads from its nvidia-smi and slurmd -C, and the files it writes from them, agree with
 * what Debian's slurmd of that release detected on the machine with those files.
 */
class RealH200Test {

    private static final Pattern GRES =
            Pattern.compile("Gres Name=gpu Type=(\\S+) Count=(\\d+) Index=(\\d+) .*File=(\\S+)");

    private static String sample(String file) throws IOException {
        try (InputStream in = RealH200Test.class.getResourceAsStream("/gpu/h200-2026-12-04/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"24.11.5", "26.05.5"})
    void theTypeSlurmletWritesIsTheOneSlurmdDetectedOnTheMachine(String version) throws IOException {
        String release = version.substring(0, 5);
        List<NodeFacts.Gpus> gpus = NvidiaSmi.read(new Commands.Result(0, sample("nvidia-smi-query-gpu-name.txt"), ""))
                .gpus();
        assertEquals(List.of(new NodeFacts.Gpus("NVIDIA H200", 1)), gpus);
        NodeFacts machine = SlurmdConfig.parse("h200", sample("slurmd-C-" + release + ".txt"))
                .orElseThrow();
        assertEquals(16, machine.cpus());
        assertEquals(128_869, machine.memoryMiB());
        NodeFacts facts = NodeFacts.builder("h200")
                .cpus(machine.cpus())
                .boards(machine.boards())
                .sockets(machine.sockets())
                .coresPerSocket(machine.coresPerSocket())
                .threadsPerCore(machine.threadsPerCore())
                .memoryMiB(machine.memoryMiB())
                .gpus(gpus)
                .os("ubuntu 24.04")
                .slurmVersion(version)
                .build();

        SlurmSettings s = new SlurmSettings(
                true, "lab", "h200", List.of("h200"), false, List.of("h200"), "batch", null, "", false, null);
        Rendered r = SlurmConfig.render(new RenderInput(
                s, Map.of("h200", facts), SlurmVersion.parse(version).orElseThrow()));
        assertTrue(r.ok(), r.problems().toString());

        Matcher detected = GRES.matcher(sample("slurmd-G-" + release + ".txt"));
        assertTrue(detected.find());
        String type = detected.group(1);
        assertEquals("nvidia_h200", type, "what slurmd " + release + " detected with AutoDetect=nvidia");
        assertTrue(
                r.files().get("slurm.conf").contains(" Gres=gpu:" + type + ":" + detected.group(2) + " "),
                "slurm.conf's Gres names the type and count slurmd detects: "
                        + r.files().get("slurm.conf"));
        // slurmd -C on the machine printed the same Gres as slurmlet's line: the node registers as configured.
        assertTrue(sample("slurmd-C-" + release + ".txt").contains("Gres=gpu:" + type + ":1"));
        String gres = r.files().get("gres.conf");
        assertTrue(
                gres.contains(
                        release.equals("24.11")
                                ? "\nNodeName=h200 AutoDetect=nvidia\n"
                                : "\nNodeName=h200 AutoDetect=nvidia Name=gpu Type=nvidia_h200\n"),
                gres);
        // 22.05's explicit device files count from /dev/nvidia0 by nvidia-smi's index: on the machine index 0 was minor
        // 0.
        assertEquals("/dev/nvidia0", detected.group(4));
        assertEquals("/dev/nvidia0", Slurm2205.deviceFiles(Integer.parseInt(detected.group(3)), 1));
    }
}
