package io.slurmlet.agent.slurm.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.agent.slurm.HostList;
import io.slurmlet.agent.slurm.SlurmVersion;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.settings.SlurmSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NodeLinesTest {

    private static final Pattern LINE = Pattern.compile("(?m)^NodeName=(\\S+)(?: NodeAddr=(\\S+))? (.*)$");

    private static NodeFacts machine(String name, String address, int gpus) {
        return NodeFacts.builder(name)
                .address(address)
                .cpus(224)
                .sockets(2)
                .coresPerSocket(56)
                .threadsPerCore(2)
                .memoryMiB(2_063_000)
                .gpus(gpus == 0 ? List.of() : List.of(new NodeFacts.Gpus("NVIDIA H200", gpus)))
                .os("debian 12")
                .slurmVersion("24.11.5")
                .build();
    }

    private static String slurmConf(List<NodeFacts> nodes, List<String> lent) {
        Map<String, NodeFacts> facts = new HashMap<>();
        nodes.forEach(n -> facts.put(n.name(), n));
        facts.put(
                "head",
                NodeFacts.builder("head")
                        .address("10.9.0.1")
                        .cpus(16)
                        .sockets(1)
                        .coresPerSocket(8)
                        .threadsPerCore(2)
                        .memoryMiB(64_000)
                        .os("debian 12")
                        .slurmVersion("24.11.5")
                        .build());
        SlurmSettings s = new SlurmSettings(
                true,
                "lab",
                "head",
                nodes.stream().map(NodeFacts::name).toList(),
                false,
                lent,
                "batch",
                null,
                "",
                false,
                null);
        Rendered r = SlurmConfig.render(new RenderInput(s, facts, SlurmVersion.of(24, 11)));
        assertTrue(r.ok(), r.problems().toString());
        return r.files().get("slurm.conf");
    }

    /** Each node slurm.conf names, with the address and the rest of its line, as Slurm pairs them. */
    private static Map<String, List<String>> perNode(String conf) {
        Map<String, List<String>> nodes = new TreeMap<>();
        Matcher m = LINE.matcher(conf);
        while (m.find()) {
            List<String> names = HostList.expand(m.group(1));
            List<String> addresses = m.group(2) == null ? List.of() : HostList.expand(m.group(2));
            assertTrue(
                    addresses.isEmpty() || addresses.size() == names.size(),
                    "as many addresses as names: " + m.group());
            for (int i = 0; i < names.size(); i++) {
                List<String> was =
                        nodes.put(names.get(i), List.of(addresses.isEmpty() ? "" : addresses.get(i), m.group(3)));
                assertEquals(null, was, names.get(i) + " on two lines");
            }
        }
        return nodes;
    }

    @Test
    void tenThousandMachinesOfTwoKindsTakeALineEachPerSubnetAndLendingState() {
        List<NodeFacts> nodes = new ArrayList<>();
        List<String> lent = new ArrayList<>();
        for (int i = 1; i <= 10_000; i++) {
            String name = "gpu%05d".formatted(i);
            // 250 machines a /24, in the order of their names; every tenth has no GPUs.
            nodes.add(machine(
                    name, "10.%d.%d.%d".formatted(1 + i / 62_500, (i / 250) % 256, 1 + i % 250), i % 10 == 0 ? 0 : 8));
            if (i <= 5_000) {
                lent.add(name);
            }
        }
        String conf = slurmConf(nodes, lent);
        long lines = conf.lines().filter(l -> l.startsWith("NodeName=")).count();
        // A line per /24 (41 of them), kind (GPUs or none) and lending state: 164 at most.
        assertTrue(lines <= 164, lines + " NodeName lines for 10,000 machines of two kinds");
        assertTrue(conf.length() < 100_000, conf.length() + " bytes");
        Map<String, List<String>> read = perNode(conf);
        assertEquals(10_000, read.size());
        for (NodeFacts n : nodes) {
            List<String> line = read.get(n.name());
            assertEquals(n.address(), line.get(0), n.name() + "'s address");
            assertEquals(n.gpuCount() > 0, line.get(1).contains("Gres=gpu:nvidia_h200:8"), n.name());
            assertEquals(lent.contains(n.name()), line.get(1).contains("State=UNKNOWN"), n.name());
        }
    }

    @Test
    void machinesWithoutAddressesShareOneLineWhateverTheirNames() {
        List<NodeFacts> nodes = new ArrayList<>();
        for (int i = 1; i <= 10_000; i++) {
            nodes.add(machine("gpu" + i, "", 8));
        }
        String conf = slurmConf(nodes, nodes.stream().map(NodeFacts::name).toList());
        List<String> lines = conf.lines().filter(l -> l.startsWith("NodeName=")).toList();
        assertEquals(
                List.of("NodeName=gpu[1-10000] CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 ThreadsPerCore=2 "
                        + "RealMemory=2046616 Gres=gpu:nvidia_h200:8 State=UNKNOWN"),
                lines);
        assertTrue(conf.length() < 5_000, conf.length() + " bytes");
    }

    @Test
    void anAddressOutOfStepStartsAnotherLineAndSlurmPairsEachNameWithItsOwnAddress() {
        List<NodeFacts> nodes = List.of(
                machine("n1", "10.0.0.11", 0),
                machine("n2", "10.0.0.12", 0),
                machine("n3", "10.0.0.20", 0),
                machine("n4", "10.0.0.5", 0),
                machine("n5", "fd00::5", 0),
                machine("n6", "fd00::6", 0),
                machine("n7", "n7.site", 0),
                machine("n8", "n8.site", 0),
                machine("n9", "10.0.0.9", 0),
                machine("n10", "10.0.0.10", 0));
        String conf = slurmConf(nodes, nodes.stream().map(NodeFacts::name).toList());
        List<String> lines = conf.lines()
                .filter(l -> l.startsWith("NodeName="))
                .map(l -> l.split(" CPUs=")[0])
                .toList();
        assertEquals(
                List.of(
                        "NodeName=n[1-3] NodeAddr=10.0.0.[11-12,20]",
                        "NodeName=n4 NodeAddr=10.0.0.5",
                        "NodeName=n5 NodeAddr=fd00::5",
                        "NodeName=n6 NodeAddr=fd00::6",
                        "NodeName=n7 NodeAddr=n7.site",
                        "NodeName=n8 NodeAddr=n8.site",
                        "NodeName=n[9-10] NodeAddr=10.0.0.[9-10]"),
                lines);
        Map<String, List<String>> read = perNode(conf);
        nodes.forEach(n -> assertEquals(n.address(), read.get(n.name()).get(0), n.name()));
    }

    @Test
    void aRunWhoseHostListsWouldNotReadBackInOrderIsOneMachineALine() {
        // gpu9 and gpu1000 unpadded, gpu099 padded: a host list orders them by width, not by number.
        List<NodeFacts> nodes = List.of(
                machine("gpu9", "10.0.0.1", 0), machine("gpu099", "10.0.0.2", 0), machine("gpu1000", "10.0.0.3", 0));
        String conf = slurmConf(nodes, List.of("gpu9", "gpu099", "gpu1000"));
        Map<String, List<String>> read = perNode(conf);
        nodes.forEach(n -> assertEquals(n.address(), read.get(n.name()).get(0), n.name()));
    }

    @Test
    void aMixedSiteOfRandomMachinesReadsBackExactlyAsReported() {
        Random random = new Random(17);
        List<NodeFacts> nodes = new ArrayList<>();
        List<String> lent = new ArrayList<>();
        int address = 1;
        for (int i = 1; i <= 2_000; i++) {
            String name = (random.nextInt(4) == 0 ? "cpu" : "gpu") + i;
            address += random.nextInt(10) == 0 ? 2 : 1; // gaps in the addresses now and then
            String addr = random.nextInt(20) == 0 ? "" : "10.1.%d.%d".formatted(address / 200, address % 200);
            nodes.add(machine(name, addr, random.nextInt(3) * 4));
            if (random.nextBoolean()) {
                lent.add(name);
            }
        }
        String conf = slurmConf(nodes, lent);
        Map<String, List<String>> read = perNode(conf);
        assertEquals(nodes.size(), read.size());
        Set<String> lentSet = Set.copyOf(lent);
        for (NodeFacts n : nodes) {
            List<String> line = read.get(n.name());
            assertEquals(n.address(), line.get(0), n.name());
            assertEquals(lentSet.contains(n.name()), line.get(1).contains("State=UNKNOWN"), n.name());
            assertEquals(
                    n.gpuCount() == 0 ? "" : "Gres=gpu:nvidia_h200:" + n.gpuCount(),
                    line.get(1).replaceAll(".*(Gres=\\S+).*", "$1").replaceAll("^(?!Gres=).*", ""),
                    n.name());
        }
    }
}
