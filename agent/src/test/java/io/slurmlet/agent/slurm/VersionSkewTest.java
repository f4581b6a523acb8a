package io.slurmlet.agent.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VersionSkewTest {

    @ParameterizedTest(name = "slurmd {0} with slurmctld {1}: {2}")
    @CsvSource({
        "22.05.8, 22.05.8, true",
        "22.05.2, 22.05.8, true",
        "22.05.8, 22.05.2, true",
        "21.08.8, 22.05.8, true",
        "20.11.9, 22.05.8, true",
        "20.02.7, 22.05.8, false",
        "23.02.1, 22.05.8, false",
        "24.11.5, 26.05.5, true",
        "24.05.1, 26.05.5, false",
        "23.11.1, 24.11.5, true",
        "23.02.1, 24.11.5, true",
        "22.05.8, 24.11.5, false",
        "25.11.1, 26.05.5, true"
    })
    void slurmdMayBeAFewReleasesOlderAndNeverNewer(String node, String controller, boolean works) {
        assertEquals(
                works,
                VersionSkew.problem(
                                "n",
                                SlurmVersion.parse(node).orElseThrow(),
                                "c",
                                SlurmVersion.parse(controller).orElseThrow())
                        .isEmpty());
    }
}
