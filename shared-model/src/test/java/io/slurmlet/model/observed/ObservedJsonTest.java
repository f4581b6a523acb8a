package io.slurmlet.model.observed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.slurmlet.model.api.SettingsJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What an agent reports of its users and packages: read strictly, every text one line, no key in it. */
class ObservedJsonTest {

    static final String DIGEST = "a".repeat(64);

    @Test
    void theUsersAndPackagesSectionsGoThereAndBack() throws Exception {
        Observed seen = new Observed(
                null,
                null,
                null,
                List.of("3"),
                new UsersSeen(
                        true,
                        List.of(new UsersSeen.User(
                                "alice",
                                200000,
                                200000,
                                "slurmlet account alice@example.org",
                                false,
                                UsersSeen.User.PRIVATE,
                                DIGEST))),
                new PackagesSeen(List.of("munge"), List.of("slurmd")),
                new SlurmSeen(
                        List.of(new SlurmSeen.File(
                                "/var/lib/slurm/slurmctld/clustername",
                                DIGEST,
                                "lab|617",
                                "rw-r--r--",
                                "slurm",
                                "slurm")),
                        List.of("slurmd"),
                        List.of("slurmd"),
                        List.of("slurmd RESTART - PrologFlags"),
                        false,
                        new SlurmSeen.JwksSeen(3L, java.util.Map.of("slurmd", 2L))));
        String json = SettingsJson.STRICT.writeValueAsString(seen);
        assertEquals(seen, SettingsJson.STRICT.readValue(json, Observed.class));
        String older = SettingsJson.STRICT.writeValueAsString(seen.withoutLaterSections());
        assertFalse(
                older.contains("users") || older.contains("packages") || older.contains("slurm"),
                "an older leader's shape: " + older);
    }

    @Test
    void whatCrossesFromAMachineIsOneLineOfItsKind() {
        assertThrows(IllegalArgumentException.class, () -> new UsersSeen.User("alice\nroot", 1, 1, "", false, "", ""));
        assertThrows(IllegalArgumentException.class, () -> new UsersSeen.User("alice", 1, 1, "x\ny", false, "", ""));
        assertThrows(
                IllegalArgumentException.class,
                () -> new UsersSeen.User("alice", 1, 1, "", false, "symbolic\tlink", ""));
        assertThrows(
                IllegalArgumentException.class,
                () -> new UsersSeen.User("alice", 1, 1, "", false, "", "ssh-ed25519 AAAA"));
        assertThrows(IllegalArgumentException.class, () -> new UsersSeen.User("alice", -2, 1, "", false, "", ""));
        assertThrows(IllegalArgumentException.class, () -> new PackagesSeen(List.of("munge; rm -rf /"), List.of()));
        assertThrows(IllegalArgumentException.class, () -> new PackagesSeen(List.of(), List.of("-o")));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmSeen.File("etc/slurm.conf", "", "", "rw-r--r--", "root", "root"));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmSeen.File("/etc/slurm/slurm.conf", "", "a\nb", "rw-r--r--", "root", "root"));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmSeen(List.of(), List.of("slurmd; reboot"), List.of(), List.of(), false, null));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmSeen(List.of(), List.of(), List.of(), List.of("a\nb"), false, null));
        assertThrows(
                IllegalArgumentException.class,
                () -> new SlurmSeen.JwksSeen(1L, java.util.Map.of("slurmd; reboot", 1L)));
        assertThrows(IllegalArgumentException.class, () -> new SlurmSeen.JwksSeen(0L, java.util.Map.of()));
        assertTrue(new UsersSeen.User("alice", -1, -1, "", false, "", UsersSeen.User.LINKED)
                .keys()
                .equals("linked"));
        var bad = assertThrows(
                Exception.class,
                () -> SettingsJson.toValue(
                        SettingsJson.readObject(
                                "{\"jobs\":[],\"users\":{\"kept\":true,\"users\":[{\"login\":\"a\\nb\",\"uid\":1}]}}"
                                        .getBytes()),
                        Observed.class));
        assertTrue(bad.getMessage().contains("login"), bad.getMessage());
    }

    static ContainersSeen containers() {
        return containers(
                "amd64",
                java.util.Map.of(
                        "/etc/enroot/enroot.conf.d/50-slurmlet.conf",
                        DIGEST + " rw-r--r-- root:root",
                        "/etc/enroot/mounts.d/50-slurmlet-shared.fstab",
                        ""));
    }

    static ContainersSeen containers(String arch, java.util.Map<String, String> files) {
        return new ContainersSeen(
                arch,
                "deb",
                java.util.Map.of("enroot", "4.1.2-1", "enroot+caps", "4.1.2-1"),
                "24.11.5",
                "24.11.5",
                new ContainersSeen.Pyxis("0.24.0", "24.11.5", DIGEST, DIGEST),
                DIGEST,
                files,
                List.of("/run/pyxis"));
    }

    @Test
    void theContainersStepsSectionGoesThereAndBackAndAnOlderAgentsReportReadsWithoutIt() throws Exception {
        Observed seen = Observed.NOTHING.withJobs(List.of("3")).withContainers(containers());
        String json = SettingsJson.STRICT.writeValueAsString(seen);
        assertTrue(json.contains("\"containers_step\""), json);
        assertEquals(seen, SettingsJson.STRICT.readValue(json, Observed.class));
        Observed older = SettingsJson.STRICT.readValue("{\"jobs\":[\"3\"]}", Observed.class);
        assertEquals(null, older.containers(), "an agent older than the section: the dry run says what the facts tell");
        assertFalse(
                SettingsJson.STRICT
                        .writeValueAsString(seen.withoutLaterSections())
                        .contains("containers"),
                "a leader older than the section gets the report without it");
    }

    @Test
    void whatTheContainersStepSawIsWordsAndPathsOnly() {
        var files = containers().files();
        assertThrows(IllegalArgumentException.class, () -> containers("amd64\nroot", files));
        assertThrows(IllegalArgumentException.class, () -> containers("amd64", java.util.Map.of("/etc/../shadow", "")));
        assertThrows(
                IllegalArgumentException.class,
                () -> containers("amd64", java.util.Map.of("/etc/enroot/x.conf", "not a digest")));
        assertThrows(IllegalArgumentException.class, () -> new ContainersSeen.Pyxis("0.24.0", "24.11 5", "", ""));
    }
}
