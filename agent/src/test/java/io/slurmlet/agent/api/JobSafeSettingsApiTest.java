package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.leader.NodeReports;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SlurmNodeState;
import io.slurmlet.model.observed.Observed;
import io.slurmlet.model.observed.QueuedJob;
import io.slurmlet.model.observed.SlurmSeen;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A settings change that would end running jobs is refused, dry run included, and nothing is stored. */
@QuarkusTest
class JobSafeSettingsApiTest {

    @Inject
    NodeReports reports;

    @Test
    void renamingThePartitionWhileJobsRunInItIsRefusedWithWhyAndWhatToDoAndTakenOnceTheyEnd() {
        long revision = reset("""
                {"enabled": true, "controller": "js-ctl", "nodes": ["js-n1", "js-n2"], "lent": ["js-n1"], "partition": "gpu"}""");
        reports.put(new NodeReport(
                "js-ctl",
                1,
                List.of(),
                List.of(
                        new SlurmNodeState("js-n1", "MIXED", "", List.of("17 of alice")),
                        new SlurmNodeState("js-n2", "IDLE+DRAIN", "slurmlet: not lent", List.of()))));
        String message =
                "renaming the partition gpu to batch would end the 1 job running in it (17 of alice): Slurm ends "
                        + "the jobs of a partition that leaves slurm.conf; rename it once squeue shows none (ctl slurm unlend the "
                        + "nodes to let them drain)";
        for (String dryRun : List.of("true", "false")) {
            admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                    .body("{\"partition\": \"batch\"}")
                    .patch("/v1/slurm/settings?dry_run=" + dryRun)
                    .then()
                    .statusCode(400)
                    .body("problems[0].key", equalTo("partition"))
                    .body("problems[0].value", equalTo("batch"))
                    .body("problems[0].message", equalTo(message));
        }
        admin().get("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) revision))
                .body("settings.partition", equalTo("gpu"));
        // Moving the controller would lose the job too: its saved state holds it.
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"controller\": \"js-n2\"}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("controller"))
                .body("problems[0].value", equalTo("js-n2"))
                .body(
                        "problems[0].message",
                        equalTo("moving slurmctld from js-ctl to js-n2 would lose the 1 job it runs (17 of "
                                + "alice): the new controller starts with none of them; move it once squeue shows none (ctl slurm unlend the "
                                + "nodes to let them drain)"));

        // Another change while the job runs is not held up; once it ended the rename is taken.
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"lent\": [\"js-n1\", \"js-n2\"]}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
        reports.put(
                new NodeReport("js-ctl", 2, List.of(), List.of(new SlurmNodeState("js-n1", "IDLE", "", List.of()))));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.partition", equalTo("batch"));
    }

    /**
     * auth=slurm restarts slurmctld and every slurmd with another AuthType: refused while a job runs
     * or waits, and while a Slurm machine's agent is too old to write slurm.jwks; taken once none is,
     * and back to munge the same way. A value that is no choice names both.
     */
    @Test
    void switchingAuthIsRefusedUnderJobsAndBesideAnOldAgentAndTakenWhenIdle() {
        long revision = reset("""
                {"enabled": true, "controller": "js-ctl", "nodes": ["js-n1"], "lent": ["js-n1"]}""");
        reports.put(new NodeReport(
                "js-ctl", 1, List.of(), List.of(new SlurmNodeState("js-n1", "MIXED", "", List.of("17 of alice")))));
        for (String dryRun : List.of("true", "false")) {
            admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                    .body("{\"auth\": \"slurm\"}")
                    .patch("/v1/slurm/settings?dry_run=" + dryRun)
                    .then()
                    .statusCode(400)
                    .body("problems[0].key", equalTo("auth"))
                    .body("problems[0].value", equalTo("slurm"))
                    .body(
                            "problems[0].message",
                            equalTo("switching auth from munge to slurm restarts slurmctld and every slurmd, and Slurm "
                                    + "does not support a change of AuthType under jobs (a running job's slurmstepd keeps the "
                                    + "plugin it started with; a job launched while the machines restart is refused): the 1 "
                                    + "job running (17 of alice); switch once squeue shows none (ctl slurm unlend the nodes to "
                                    + "let them drain)"));
        }
        admin().get("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) revision))
                .body("settings.auth", org.hamcrest.Matchers.nullValue());

        // The job ended; js-n1's agent is of a slurmlet that reports no jwks.
        reports.put(
                new NodeReport("js-ctl", 2, List.of(), List.of(new SlurmNodeState("js-n1", "IDLE", "", List.of()))));
        SlurmSeen old = new SlurmSeen(List.of(), List.of("slurmd"), List.of("slurmd"), List.of(), false, null);
        reports.put(new NodeReport(
                "js-n1", 1, List.of(), List.of(), new Observed(null, null, null, List.of(), null, null, old)));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"auth\": \"slurm\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("auth"))
                .body(
                        "problems[0].message",
                        equalTo("switching auth from munge to slurm restarts slurmctld and every slurmd, and the agent "
                                + "on js-n1 is of a slurmlet too old to write Slurm's keys (slurm.jwks): upgrade slurmlet "
                                + "there first"));

        SlurmSeen upgraded = new SlurmSeen(
                List.of(), List.of("slurmd"), List.of("slurmd"), List.of(), false, SlurmSeen.JwksSeen.NONE);
        reports.put(new NodeReport(
                "js-n1", 2, List.of(), List.of(), new Observed(null, null, null, List.of(), null, null, upgraded)));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"auth\": \"kerberos\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("auth"))
                .body(
                        "problems[0].message",
                        equalTo("auth \"kerberos\" is not a choice: \"munge\" (munged and the munge key, the default) "
                                + "or \"slurm\" (Slurm's own auth/slurm with slurm.jwks, Slurm 24.05 and later)"));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"auth\": \"slurm\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.auth", equalTo("slurm"));

        // Back, the same way: refused under a job, taken when idle, and stored as the default it is.
        reports.put(new NodeReport(
                "js-ctl", 3, List.of(), List.of(new SlurmNodeState("js-n1", "MIXED", "", List.of("18 of bob")))));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"auth\": \"munge\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("auth"))
                .body("problems[0].value", equalTo("munge"));
        reports.put(
                new NodeReport("js-ctl", 4, List.of(), List.of(new SlurmNodeState("js-n1", "IDLE", "", List.of()))));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"auth\": \"munge\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.auth", org.hamcrest.Matchers.nullValue());
    }

    @Test
    void jobsWaitingInTheQueueHoldUpAControllerMoveAndARenameOfTheirPartitionAndNothingElse() {
        long revision = reset("""
                {"enabled": true, "controller": "js-ctl", "nodes": ["js-n1", "js-n2"], "lent": [], "partition": "gpu"}""");
        // 42 names only a memory class of gpu (its partitions are renamed with it), 43 another partition.
        var queued = List.of(
                new QueuedJob("41", "alice", List.of("gpu")),
                new QueuedJob("42", "bob", List.of("other", "gpu_m8192")),
                new QueuedJob("43", "carol", List.of("other", "gpu_mx")));
        reports.put(new NodeReport(
                "js-ctl",
                1,
                List.of(),
                List.of(new SlurmNodeState("js-n1", "IDLE+DRAIN", "slurmlet: not lent", List.of())),
                new Observed(null, null, null, List.of(), null, null, null, queued)));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"controller\": \"js-n2\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("controller"))
                .body(
                        "problems[0].message",
                        equalTo("moving slurmctld from js-ctl to js-n2 would lose the 3 jobs waiting in its "
                                + "queue (41 of alice, 42 of bob, 43 of carol): the new controller starts with none of them; move it once "
                                + "squeue shows none (let the waiting jobs run, or scancel them; ctl slurm unlend the nodes to let the running "
                                + "ones drain)"));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("partition"))
                .body(
                        "problems[0].message",
                        equalTo(
                                "renaming the partition gpu to batch would end the 2 jobs waiting for it "
                                        + "(41 of alice, 42 of bob): Slurm ends the jobs of a partition that leaves slurm.conf; rename it once squeue "
                                        + "shows none (let the waiting jobs run, or scancel them; ctl slurm unlend the nodes to let the running ones drain)"));
        admin().get("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("revision", equalTo((int) revision))
                .body("settings.partition", equalTo("gpu"))
                .body("settings.controller", equalTo("js-ctl"));
        // A job of another partition only: the rename is taken.
        reports.put(new NodeReport(
                "js-ctl",
                2,
                List.of(),
                List.of(),
                new Observed(
                        null,
                        null,
                        null,
                        List.of(),
                        null,
                        null,
                        null,
                        List.of(new QueuedJob("43", "carol", List.of("other"))))));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200)
                .body("settings.partition", equalTo("batch"));
        reports.put(new NodeReport(
                "js-ctl",
                3,
                List.of(),
                List.of(),
                new Observed(null, null, null, List.of(), null, null, null, List.of())));
    }

    @Test
    void stoppingAnExportWhileAJobRunsOnAMachineThatMountsItIsRefusedAndTakenOnceItEnds() throws Exception {
        // The test leader's state outlives a run: names of this run's own.
        String run = Long.toString(System.nanoTime(), 36);
        String server = "xs" + run;
        String client = "xc" + run;
        NodesApiTest.report(server, "24.11.5");
        NodesApiTest.report(client, "24.11.5");
        try {
            takenOnceTheJobsEnd(server, client);
        } finally {
            // Whatever failed, the next test finds neither machine nor their jobs.
            TestAgents.forget(server);
            TestAgents.forget(client);
        }
    }

    private void takenOnceTheJobsEnd(String server, String client) throws Exception {
        reset(("""
                {"enabled": true, "controller": "%s", "nodes": ["%s"], "lent": ["%s"], "shared": {"path": "/shared", "server": "%s"}}""").formatted(server, client, client, server));
        reports.put(new NodeReport(
                server, 1, List.of(), List.of(new SlurmNodeState(client, "MIXED", "", List.of("21 of bob")))));
        String message =
                ("%s would stop exporting /shared to %s while 1 job that may use it still runs (21 of bob on %s): "
                                + "the jobs' files would go from under them; make the change once they have ended (ctl slurm unlend the nodes to let "
                                + "them drain)")
                        .formatted(server, client, client);
        for (String change :
                List.of("{\"shared\": {\"server\": \"\"}}", "{\"shared\": {\"path\": \"\", \"server\": \"\"}}")) {
            admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                    .body(change)
                    .patch("/v1/slurm/settings?dry_run=true")
                    .then()
                    .statusCode(400)
                    .body("problems[0].message", equalTo(message));
        }
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"shared\": {\"server\": \"\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("shared.server"))
                .body("problems[0].value", equalTo(""));
        admin().get("/v1/slurm/settings").then().statusCode(200).body("settings.shared.server", equalTo(server));

        // A machine whose agent is not connected: what it said of itself and what the controller saw both count.
        io.slurmlet.model.observed.MungeSeen munge =
                new io.slurmlet.model.observed.MungeSeen(true, true, true, true, true);
        // It mounts the server's export (a lend waits for that before Slurm runs jobs there).
        io.slurmlet.model.observed.StorageSeen mounted = new io.slurmlet.model.observed.StorageSeen(
                Map.of(
                        "shared.mount",
                        new io.slurmlet.model.observed.StorageSeen.Unit(
                                "", true, true, server + ":/shared", "/shared")),
                "",
                "",
                "",
                false,
                false,
                0,
                null,
                "",
                "",
                List.of());
        reports.put(new NodeReport(
                client,
                2,
                List.of(),
                List.of(),
                new io.slurmlet.model.observed.Observed(munge, mounted, null, List.of("22"), null, null, null)));
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"shared\": {\"server\": \"\"}}")
                .patch("/v1/slurm/settings?dry_run=true")
                .then()
                .statusCode(400)
                .body(
                        "problems[0].message",
                        equalTo(message.replace(
                                "1 job that may use it still runs (21 of bob on " + client + ")",
                                "2 jobs that may use it still run (21 of bob on " + client + ", 22 on " + client
                                        + ")")));

        // Taking the lent machine out of Slurm, or disabling slurmlet, is not refused: the machine is reclaimed
        // first and keeps its mount, and the export to it stays, until its jobs have ended.
        awaitPhase(client, "lent");
        for (String change : List.of("{\"enabled\": false}", "{\"nodes\": [], \"lent\": []}")) {
            var preview = admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                    .body(change)
                    .patch("/v1/slurm/settings?dry_run=true")
                    .then()
                    .statusCode(200)
                    .body(
                            "notes",
                            org.hamcrest.Matchers.hasItem(org.hamcrest.Matchers.startsWith(
                                    client + " leaves Slurm once its reclaim has ended")))
                    .extract()
                    .jsonPath();
            org.junit.jupiter.api.Assertions.assertNull(
                    preview.get("nodes.find { it.node == '%s' }".formatted(client)), preview.prettify());
            // Nothing changes on any machine but the drain: no file, no daemon, no mount or export.
            org.junit.jupiter.api.Assertions.assertEquals(
                    List.of(), preview.getList("nodes.files.flatten()"), preview.prettify());
            org.junit.jupiter.api.Assertions.assertEquals(
                    List.of(), preview.getList("nodes.daemons.flatten()"), preview.prettify());
            org.junit.jupiter.api.Assertions.assertEquals(
                    List.of("drain %s in Slurm (slurmlet: reclaiming for the platform): running jobs finish"
                            .formatted(client)),
                    preview.getList("nodes.actions.flatten()"),
                    preview.prettify());
        }
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"nodes\": [], \"lent\": []}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
        awaitPhase(client, "reclaiming");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("nodes.find { it.name == '%s' }.roles".formatted(client), equalTo(List.of("slurmd")))
                .body("nodes.find { it.name == '%s' }.lent".formatted(client), equalTo(false));

        reports.put(new NodeReport(
                client,
                3,
                List.of(),
                List.of(),
                new io.slurmlet.model.observed.Observed(munge, null, null, List.of(), null, null, null)));
        reports.put(new NodeReport(
                server,
                2,
                List.of(),
                List.of(new SlurmNodeState(client, "IDLE+DRAIN", "slurmlet: reclaiming", List.of()))));
        awaitPhase(client, "platform");
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("nodes.find { it.name == '%s' }".formatted(client), org.hamcrest.Matchers.nullValue());
        admin().contentType(SettingsResource.MERGE_PATCH_JSON)
                .body("{\"shared\": {\"server\": \"\"}}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
    }

    /** Waits up to 10 s for the leader's lending to show {@code node} in {@code phase}. */
    static void awaitPhase(String node, String phase) {
        await(node + "'s phase")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> admin().get("/v1/slurm/nodes")
                                .then()
                                .statusCode(200)
                                .extract()
                                .jsonPath()
                                .getString("find { it.name == '%s' }.phase".formatted(node)),
                        equalTo(phase));
    }
}
