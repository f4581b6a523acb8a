package io.slurmlet.agent.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class HostListTest {

    @Test
    void zeroPaddedRunsKeepTheirWidth() {
        List<String> names = IntStream.rangeClosed(1, 128)
                .mapToObj(i -> "gpu%03d".formatted(i))
                .toList();
        assertEquals("gpu[001-128]", HostList.compress(names));
    }

    @Test
    void unpaddedNumbersRunAcrossLengths() {
        assertEquals("n[8-10]", HostList.compress(List.of("n10", "n8", "n9")));
    }

    @Test
    void gapsBecomeSeveralRangesInOneBracket() {
        assertEquals(
                "gpu[001-004,007,010-012]",
                HostList.compress(
                        List.of("gpu001", "gpu002", "gpu003", "gpu004", "gpu007", "gpu010", "gpu011", "gpu012")));
    }

    @Test
    void aSingleNumberedNameStaysPlain() {
        assertEquals("gpu7", HostList.compress(List.of("gpu7")));
        assertEquals("gpu007", HostList.compress(List.of("gpu007")));
    }

    @Test
    void namesWithoutANumberDoNotCompress() {
        assertEquals("alpha,beta,login.example.org", HostList.compress(List.of("login.example.org", "beta", "alpha")));
    }

    @Test
    void mixedWidthsOfOnePrefixStayApart() {
        // gpu01 and gpu1 are different machines: neither may be written as the other.
        assertEquals("gpu[1-2],gpu[01-02]", HostList.compress(List.of("gpu01", "gpu1", "gpu02", "gpu2")));
        assertEquals(
                new HashSet<>(List.of("gpu01", "gpu1", "gpu02", "gpu2")),
                new HashSet<>(HostList.expand("gpu[1-2],gpu[01-02]")));
    }

    @Test
    void anUnpaddedNumberAsLongAsThePaddedWidthJoinsIt() {
        assertEquals("gpu[098-101]", HostList.compress(List.of("gpu098", "gpu099", "gpu100", "gpu101")));
    }

    @Test
    void differentPrefixesAndDigitsInsideNames() {
        assertEquals(
                "a[1-2],rack1-n[1-2],rack2-n1",
                HostList.compress(List.of("rack2-n1", "rack1-n2", "rack1-n1", "a2", "a1")));
    }

    @Test
    void zeroAloneIsAnUnpaddedNumber() {
        assertEquals("n[0-2]", HostList.compress(List.of("n0", "n1", "n2")));
    }

    @Test
    void duplicatesAreListedOnce() {
        assertEquals("n[1-2]", HostList.compress(List.of("n1", "n2", "n1")));
    }

    @Test
    void tenThousandNodesInAnyOrderCompressToOneRangeAndBack() {
        List<String> names = new ArrayList<>(IntStream.rangeClosed(1, 10_000)
                .mapToObj(i -> "gpu%05d".formatted(i))
                .toList());
        Collections.shuffle(names, new Random(7));
        String list = HostList.compress(names);
        assertEquals("gpu[00001-10000]", list);
        List<String> expanded = HostList.expand(list);
        assertEquals(10_000, expanded.size());
        assertEquals(new HashSet<>(names), new HashSet<>(expanded));
    }

    @Test
    void tenThousandScatteredNodesRoundTrip() {
        Random random = new Random(11);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            names.add(
                    switch (random.nextInt(4)) {
                        case 0 -> "gpu%04d".formatted(random.nextInt(20_000));
                        case 1 -> "cpu" + random.nextInt(5_000);
                        case 2 -> "r%d-n%02d".formatted(random.nextInt(50), random.nextInt(40));
                        default -> "host-" + Integer.toString(random.nextInt(1_000_000), 36);
                    });
        }
        assertEquals(new HashSet<>(names), new HashSet<>(HostList.expand(HostList.compress(names))));
    }

    @Test
    void expandReadsWhatSlurmWrites() {
        assertEquals(
                List.of("gpu001", "gpu002", "gpu005", "login", "n9", "n10"),
                HostList.expand("gpu[001-002,005],login,n[9-10]"));
        assertEquals(List.of("r1-n1", "r1-n2", "r2-n1", "r2-n2"), HostList.expand("r[1-2]-n[1-2]"));
    }

    @Test
    void expandRefusesBrokenExpressions() {
        assertThrows(IllegalArgumentException.class, () -> HostList.expand("gpu[001-002"));
        assertThrows(IllegalArgumentException.class, () -> HostList.expand("gpu[a-b]"));
    }

    @Test
    void naturalOrderSortsByNumber() {
        List<String> names = new ArrayList<>(List.of("n10", "n9", "login", "n1"));
        names.sort(HostList.NATURAL_ORDER);
        assertEquals(List.of("login", "n1", "n9", "n10"), names);
    }

    @Test
    void runsRiseWithinOnePrefix() {
        assertTrue(HostList.rises("gpu099", "gpu100"));
        assertTrue(HostList.rises("n9", "n10"));
        assertTrue(HostList.rises("n9", "n12"));
        assertTrue(HostList.rises("10.0.0.9", "10.0.0.10"));
        assertFalse(HostList.rises("gpu1", "cpu2"));
        assertFalse(HostList.rises("10.0.0.255", "10.0.1.0"));
        assertFalse(HostList.rises("n10", "n9"));
        assertFalse(HostList.rises("login", "login"));
    }
}
