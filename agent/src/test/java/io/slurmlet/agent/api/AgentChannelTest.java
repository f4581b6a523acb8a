package io.slurmlet.agent.api;

import static io.slurmlet.agent.api.ApiTestSupport.STATE_DIR;
import static io.slurmlet.agent.api.ApiTestSupport.admin;
import static io.slurmlet.agent.api.ApiTestSupport.reset;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import io.slurmlet.agent.TestFacts;
import io.slurmlet.agent.node.LeaderCalls;
import io.slurmlet.agent.node.LeaderJoin;
import io.slurmlet.agent.node.LeaderLink;
import io.slurmlet.agent.node.LeaderTls;
import io.slurmlet.agent.trust.LeaderChannel;
import io.slurmlet.agent.trust.Pki;
import io.slurmlet.model.api.NodeReport;
import io.slurmlet.model.api.SettingsJson;
import io.slurmlet.model.api.StepStatus;
import io.slurmlet.model.facts.NodeFacts;
import io.slurmlet.model.plan.PublishedPlan;
import io.slurmlet.model.plan.Role;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agents' channel over real TLS: join with the pinned CA, facts, the plan long poll, status. */
@QuarkusTest
class AgentChannelTest {

    @Inject
    LeaderChannel leader;

    @Inject
    Pki pki;

    @Inject
    io.slurmlet.agent.store.Store store;

    @Inject
    io.slurmlet.agent.leader.PlanPublisher plans;

    /** No file handed to the leader stays for the other tests of this application (containers=true's check counts them). */
    void forgetContainerFiles() throws IOException {
        for (String folder : List.of("container-files", "container-parts")) {
            for (var e : store.list(folder).entrySet()) {
                store.delete(e.getKey(), e.getValue().version());
            }
        }
    }

    URI base() {
        return URI.create("https://127.0.0.1:" + leader.agentPort());
    }

    private String token;

    /** A join token of this test class's, made once through the admin API. */
    String joinToken() {
        if (token == null) {
            token = admin().contentType("application/json")
                    .body("{\"description\": \"AgentChannelTest\"}")
                    .post("/v1/join-tokens")
                    .then()
                    .statusCode(201)
                    .extract()
                    .path("token");
        }
        return token;
    }

    static NodeFacts facts(String node, String slurm) {
        return TestFacts.fourCoresTwoThreads(node)
                .memoryMiB(32000)
                .os("debian 12")
                .slurmVersion(slurm)
                .build();
    }

    LeaderLink joined(String node) throws Exception {
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        var reply = LeaderJoin.join(base(), ca, joinToken(), node);
        assertEquals(node, reply.node());
        assertFalse(reply.toString().contains(reply.credential()), "a join reply never prints its credential");
        return new LeaderLink(base(), ca, reply.credential());
    }

    /**
     * With leader-eligible agents a machine names them all (slurmlet.node.leader, comma-separated): a
     * standby opens no agents' channel, so the link goes on to the next address and stays with the one
     * that answered.
     */
    @Test
    void aLinkGivenEveryLeaderEligibleAddressFollowsTheOneThatAnswers() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        String node = "follow" + Long.toString(System.nanoTime(), 36);
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        String credential = LeaderJoin.join(base(), ca, joinToken(), node).credential();
        List<URI> addresses = LeaderLink.addresses(" https://127.0.0.1:%d , %s ".formatted(closed, base()));
        assertEquals(List.of(URI.create("https://127.0.0.1:" + closed), base()), addresses);
        LeaderLink link = new LeaderLink(addresses, ca, credential);
        link.reportFacts(facts(node, "24.11.6"));
        link.reportFacts(facts(node, "24.11.6"));
        assertTrue(
                link.toString().contains(base().toString()) && !link.toString().contains(credential));
        java.io.IOException none = assertThrows(
                java.io.IOException.class,
                () -> new LeaderLink(List.of(URI.create("https://127.0.0.1:" + closed)), ca, credential)
                        .reportFacts(facts(node, "24.11.6")));
        assertTrue(
                none.getMessage().contains("cannot reach the leader at https://127.0.0.1:" + closed),
                none.getMessage());
    }

    /**
     * A machine whose facts change more often than slurmlet.leader.facts-change-interval takes (the
     * default: 3 changes after its first report, then one every 10 s) has a further change refused
     * with 429 and a Retry-After within the interval, naming the machine and the limit, and nothing
     * of it kept; a report of the facts held is still taken, and another machine is not limited.
     */
    @Test
    void factsThatChangeMoreOftenThanTheLimitTakesAreRefusedWith429AndARetryAfter() throws Exception {
        String node = "flap" + Long.toString(System.nanoTime(), 36);
        LeaderLink link = joined(node);
        for (String slurm : List.of("24.11.1", "24.11.2", "24.11.3", "24.11.4")) {
            link.reportFacts(facts(node, slurm));
        }
        LeaderLink.Refused limited =
                assertThrows(LeaderLink.Refused.class, () -> link.reportFacts(facts(node, "24.11.5")));
        assertEquals(429, limited.status(), limited.getMessage());
        Duration after = limited.retryAfter().orElseThrow();
        assertTrue(
                after.compareTo(Duration.ofSeconds(1)) >= 0 && after.compareTo(Duration.ofSeconds(10)) <= 0,
                after.toString());
        assertTrue(
                limited.getMessage()
                        .contains(
                                node + "'s facts change more often than the leader takes them (3 changes at once, "
                                        + "then one every 10 s: slurmlet.leader.facts-change-interval): this report was not stored"),
                limited.getMessage());
        admin().get("/v1/nodes").then().statusCode(200).body(node + ".slurm_version", equalTo("24.11.4"));
        link.reportFacts(facts(node, "24.11.4")); // the facts held: taken
        String other = "steady" + Long.toString(System.nanoTime(), 36);
        joined(other).reportFacts(facts(other, "24.11.1"));
    }

    @Test
    void aFactsChangeIntervalOutsideNoneToAnHourStopsTheLeaderNamingTheKeyTheValueAndTheFix() {
        assertEquals(
                Duration.ofSeconds(10),
                ReportRoutes.factsLimit(Duration.ofSeconds(10)).interval());
        assertEquals(Duration.ZERO, ReportRoutes.factsLimit(Duration.ZERO).interval());
        for (Duration wrong : List.of(Duration.ofHours(2), Duration.ofSeconds(-5))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> ReportRoutes.factsLimit(wrong));
            assertTrue(
                    e.getMessage()
                            .startsWith("slurmlet.leader.facts-change-interval is " + wrong.toSeconds()
                                    + " s: give how often " + "a machine's facts may change, 0s to 1h"),
                    e.getMessage());
        }
    }

    /**
     * On the file store there are no standbys, and the agents' channel serves no admin forward: the
     * admin token, which ctl users on other machines hold, opens nothing on that port (the forward
     * itself is tested on etcd, StandbyLeaderTest).
     */
    @Test
    void theFileStoresLeaderServesNoAdminForward() throws Exception {
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        var client = java.net.http.HttpClient.newBuilder()
                .sslContext(LeaderTls.trusting(ca))
                .build();
        var none = client.send(
                java.net.http.HttpRequest.newBuilder(base().resolve("/v1/admin-forward/v1/join-tokens"))
                        .header("Authorization", "Bearer " + ApiTestSupport.token())
                        .header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(404, none.statusCode(), none.body());
        assertTrue(
                none.body().contains("no POST /v1/admin-forward/v1/join-tokens on the agents' channel"), none.body());
    }

    /**
     * A standby's own node role (its join token asked for through the admin forward, on etcd:
     * StandbyLeaderTest) follows whichever leader the election names at each call.
     */
    @Test
    void aStandbysNodeRoleFollowsTheLeaderItIsToldOfAtEachCall() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        String node = "standby" + Long.toString(System.nanoTime(), 36);
        String credential = LeaderJoin.join(base(), ca, joinToken(), node).credential();

        java.util.concurrent.atomic.AtomicReference<List<URI>> named =
                new java.util.concurrent.atomic.AtomicReference<>(List.of());
        LeaderLink link = new LeaderLink(named::get, ca, credential);
        IOException none = assertThrows(IOException.class, () -> link.reportFacts(facts(node, "24.11.6")));
        assertTrue(none.getMessage().startsWith("no leader is known yet"), none.getMessage());
        named.set(List.of(URI.create("https://127.0.0.1:" + closed)));
        IOException gone = assertThrows(IOException.class, () -> link.reportFacts(facts(node, "24.11.6")));
        assertTrue(
                gone.getMessage().contains("cannot reach the leader at https://127.0.0.1:" + closed),
                gone.getMessage());
        named.set(List.of(base())); // the election named another leader: the same link, no new join
        link.reportFacts(facts(node, "24.11.6"));
        admin().get("/v1/machines").then().statusCode(200).body(containsString(node));

        // A long poll held by a leader the election no longer names (cut off, or its machine lost) is given up
        // then, not after its wait and 30 s: the next call goes to the one named.
        long held = link.poll(0, Duration.ofSeconds(1)).map(p -> p.revision()).orElse(0L);
        var polling = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return link.poll(held, Duration.ofSeconds(60));
            } catch (IOException | InterruptedException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        // A fixed wait: the link looks at the election each LOOK, and through three looks naming this leader the poll
        // stays.
        Thread.sleep(3 * LeaderCalls.LOOK.toMillis());
        assertFalse(polling.isDone(), "the leader holds the poll: " + polling);
        named.set(List.of(URI.create("https://127.0.0.1:" + closed)));
        var given =
                assertThrows(java.util.concurrent.ExecutionException.class, () -> polling.get(20, TimeUnit.SECONDS));
        assertTrue(
                given.getCause()
                        .getMessage()
                        .contains("given up: the election names another leader than " + base() + " now"),
                given.getCause().getMessage());
    }

    /**
     * {@code ctl slurm containers import}'s API: the leader keeps a file of its table only with a
     * digest it can check (this release's table pins none, so the admin's), in parts, and serves it
     * on the agents' channel to joined machines, whose fetcher checks it again.
     */
    @Test
    void aFileHandedToTheLeaderIsKeptOnlyWithItsDigestAndServedToJoinedMachines() throws Exception {
        String file = "enroot_4.1.2-1_amd64.deb";
        byte[] bytes = new byte[1_200_000]; // three parts
        new java.util.Random(7).nextBytes(bytes);
        String sha256 = io.slurmlet.agent.reconcile.ManagedFiles.sha256(bytes);
        String other = "0".repeat(64);
        forgetContainerFiles();
        try {
            handedOverAndServed(file, bytes, sha256, other);
        } finally {
            forgetContainerFiles();
        }
    }

    private void handedOverAndServed(String file, byte[] bytes, String sha256, String other) throws Exception {
        admin().contentType("application/octet-stream")
                .body(bytes)
                .put("/v1/slurm/containers/files/" + file)
                .then()
                .statusCode(400)
                .body(
                        "error",
                        containsString("this release's table pins no sha256 for " + file
                                + ", and nothing unverified is installed: give the digest its publisher lists"));
        admin().contentType("application/octet-stream")
                .body(bytes)
                .put("/v1/slurm/containers/files/" + file + "?sha256=" + other)
                .then()
                .statusCode(400)
                .body(
                        "error",
                        equalTo(
                                file + " has sha256 " + sha256 + ", and the digest given is " + other
                                        + ": nothing kept (this is not the file the digest names; fetch it again from its publisher)"));
        admin().contentType("application/octet-stream")
                .body(bytes)
                .put("/v1/slurm/containers/files/pyxis.zip?sha256=" + sha256)
                .then()
                .statusCode(400)
                .body("error", startsWith("\"pyxis.zip\" is not a file of this release's table: its files are "));
        admin().get("/v1/slurm/containers/files")
                .then()
                .statusCode(200)
                .body("file", not(org.hamcrest.Matchers.hasItem(file)));

        admin().contentType("application/octet-stream")
                .body(bytes)
                .put("/v1/slurm/containers/files/" + file + "?sha256=" + sha256)
                .then()
                .statusCode(200)
                .body("name", equalTo("enroot"))
                .body("sha256", equalTo(sha256))
                .body("bytes", equalTo(bytes.length));
        admin().get("/v1/slurm/containers/files")
                .then()
                .statusCode(200)
                .body("file", org.hamcrest.Matchers.hasItem(file));

        String node = "files" + Long.toString(System.nanoTime(), 36);
        LeaderLink link = joined(node);
        String path = io.slurmlet.agent.containers.ArtifactTable.LEADER_FILES + sha256 + "/" + file;
        try (java.io.InputStream in = link.open(path, Duration.ofSeconds(10))) {
            assertTrue(java.util.Arrays.equals(bytes, in.readAllBytes()), "the bytes handed over, whole");
        }
        LeaderLink.Refused missing = assertThrows(
                LeaderLink.Refused.class,
                () -> link.open(
                        io.slurmlet.agent.containers.ArtifactTable.LEADER_FILES + other + "/" + file,
                        Duration.ofSeconds(10)));
        assertEquals(404, missing.status());
        assertTrue(
                missing.getMessage().contains("the leader holds no \"" + file + "\" with sha256"),
                missing.getMessage());
        LeaderLink stranger =
                new LeaderLink(base(), LeaderJoin.fetchPinnedCa(base(), pki.caHash()), "not-a-credential");
        assertEquals(
                401,
                assertThrows(LeaderLink.Refused.class, () -> stranger.open(path, Duration.ofSeconds(10)))
                        .status(),
                "only joined machines are served");

        java.nio.file.Path cache = Files.createTempDirectory("slurmlet-fetch");
        try {
            var artifact = new io.slurmlet.model.plan.Artifact(
                    "enroot", "4.1.2", "amd64", "deb", file, sha256, "https://leader.example:7818" + path);
            java.nio.file.Path fetched = io.slurmlet.agent.containers.Fetcher.of(
                            cache, 1L << 30, Duration.ofSeconds(30), link::open)
                    .fetch(artifact);
            assertTrue(java.util.Arrays.equals(bytes, Files.readAllBytes(fetched)));
        } finally {
            io.slurmlet.agent.TempTrees.delete(cache);
        }
    }

    @Inject
    io.slurmlet.agent.trust.AgentCredentials credentials;

    /**
     * Each plan answer, a plan or none, gives the machine the window its reconnection spreads over
     * once the leader is lost: the machines joined at slurmlet.leader.reconnect-rate a second (2 in
     * these tests), so a leader of 10,000 at 200 a second says 50 s.
     */
    @Test
    void aPlanAnswerGivesTheWindowReconnectionsSpreadOverFromTheMachinesJoined() throws Exception {
        String node = "rw" + Long.toString(System.nanoTime(), 36);
        reset("{\"enabled\": true, \"controller\": \"%s\", \"nodes\": [], \"lent\": []}".formatted(node));
        LeaderLink c = joined(node);
        assertEquals(Duration.ZERO, c.reconnectWindow(), "no window before the leader said one");
        c.reportFacts(facts(node, "22.05.8"));
        PublishedPlan plan = c.poll(0, Duration.ofSeconds(5)).orElseThrow();
        long expected = (credentials.count() + 1) / 2;
        assertEquals(taken(expected), c.reconnectWindow(), "with a plan");
        // Three machines more, given their credentials as a join does, without three more clients' connections from
        // this
        // address (the channel holds at most 32 from one, and the other tests' idle ones count).
        for (String more : List.of("x", "y", "z")) {
            credentials.issue(node + more);
        }
        c.poll(Optional.of(plan), Duration.ofSeconds(1)); // answered with no plan, or a plan: each gives the window
        assertEquals(taken((credentials.count() + 1) / 2), c.reconnectWindow(), "three machines more");
        if (expected < LeaderCalls.LONGEST_WINDOW.toSeconds()) {
            assertTrue(c.reconnectWindow().toSeconds() > expected, "the window grew with the joins");
        }
    }

    /**
     * The window an agent takes from the leader's {@code seconds}: at least 1 s, at most the agent's
     * longest (a test state kept from many earlier runs, target/test-state, holds over 1,200 machines).
     */
    static Duration taken(long seconds) {
        return Duration.ofSeconds(Math.min(LeaderCalls.LONGEST_WINDOW.toSeconds(), Math.max(1, seconds)));
    }

    @Test
    void theReconnectionWindowIsTheMachinesAtTheRateRoundedUpAndAtLeastASecond() {
        assertEquals(1, PlanRoutes.reconnectWindow(0, 200));
        assertEquals(1, PlanRoutes.reconnectWindow(200, 200));
        assertEquals(2, PlanRoutes.reconnectWindow(201, 200));
        assertEquals(50, PlanRoutes.reconnectWindow(10_000, 200));
        assertEquals(100_000, PlanRoutes.reconnectWindow(100_000, 1));
    }

    @Test
    void aMachineJoinsReportsAndIsAnsweredAtOnceWithItsPlanThenHeldUntilItChanges() throws Exception {
        String ctl = "ch" + Long.toString(System.nanoTime(), 36);
        String node = ctl + "n";
        reset("{\"enabled\": true, \"controller\": \"%s\", \"nodes\": [\"%s\"], \"lent\": []}".formatted(ctl, node));
        LeaderLink c = joined(ctl);
        LeaderLink n = joined(node);
        c.reportFacts(facts(ctl, "22.05.8"));
        n.reportFacts(facts(node, "22.05.8"));

        PublishedPlan first = n.poll(0, Duration.ofSeconds(5)).orElseThrow();
        assertEquals(node, first.plan().node());
        assertEquals(java.util.Set.of(Role.COMPUTE), first.plan().roles());
        assertTrue(first.plan().mungeKey().isPresent(), "a Slurm machine's plan carries the munge key");
        assertTrue(first.plan().files().get("/etc/slurm/slurm.conf").contains("PartitionName=gpu"));

        assertEquals(
                Optional.empty(),
                n.poll(first.revision(), Duration.ofSeconds(1)),
                "with nothing new the poll is held and answered empty");
        // The digest of the plan as the agent read it is the leader's: another would be answered at once.
        assertEquals(
                Optional.empty(),
                n.poll(Optional.of(first), Duration.ofSeconds(1)),
                "told the digest of the plan it holds, the leader holds the poll too");

        int held = plans.book().waiting();
        CompletableFuture<Optional<PublishedPlan>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return n.poll(first.revision(), Duration.ofSeconds(20));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        await("the leader holds the poll")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> plans.book().waiting() > held);
        admin().contentType(ApiTestSupport.MERGE_PATCH)
                .body("{\"partition\": \"batch\"}")
                .patch("/v1/slurm/settings")
                .then()
                .statusCode(200);
        PublishedPlan renamed = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertTrue(renamed.revision() > first.revision(), "a changed plan, a higher revision");
        assertTrue(renamed.plan().files().get("/etc/slurm/slurm.conf").contains("PartitionName=batch"));

        java.time.Instant sent = java.time.Instant.now();
        java.util.Optional<io.slurmlet.agent.node.Leader.Time> leaderSaid = n.postStatus(new NodeReport(
                node,
                renamed.revision(),
                List.of(new StepStatus(
                        "munge",
                        "failed",
                        "munged did not start",
                        "2026-11-30T04:00:00Z",
                        "munged did not start",
                        "2026-11-30T04:00:00Z"))));
        java.time.Instant received = java.time.Instant.now();
        assertTrue(
                leaderSaid.isPresent()
                        && !leaderSaid.get().at().isBefore(sent.minusMillis(1))
                        && !leaderSaid.get().at().isAfter(received.plusMillis(1)),
                "the answer says the leader's clock, between the sending and the answer: " + leaderSaid);
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body(
                        "nodes.find { it.name == '%s' }.steps[0].last_error".formatted(node),
                        equalTo("munged did not start"))
                .body("nodes.find { it.name == '%s' }.plan_revision".formatted(node), equalTo((int)
                        renamed.revision()));
    }

    @Test
    void everyFactAMachineReportsIsKeptAndAControllerThatCannotReadItsStateIsPlannedWithoutSlurmctld()
            throws Exception {
        String ctl = "st" + Long.toString(System.nanoTime(), 36);
        reset("{\"enabled\": true, \"controller\": \"%s\", \"nodes\": [], \"lent\": []}".formatted(ctl));
        LeaderLink c = joined(ctl);
        c.reportFacts(facts(ctl, "24.11.5").withSlurmctldState(38 << 8).withSlurmctldCandidate("25.05.1"));
        PublishedPlan plan = c.poll(0, Duration.ofSeconds(5)).orElseThrow();
        assertEquals(
                List.of("munge"), plan.plan().slurm().services(), "24.11 would exit on 22.05's state: not started");
        admin().get("/v1/nodes")
                .then()
                .statusCode(200)
                .body(ctl + ".slurmctld_state", equalTo(9728))
                .body(ctl + ".slurmctld_candidate", equalTo("25.05.1"));
        admin().get("/v1/slurm/status")
                .then()
                .statusCode(200)
                .body("problems.find { it.key == 'controller' }.value", equalTo(ctl));
    }

    @Test
    void theMungeKeyAndTokensAreInNoAdminAnswer() throws Exception {
        String node = "mk" + Long.toString(System.nanoTime(), 36);
        reset("{\"enabled\": true, \"controller\": \"%s\", \"nodes\": [\"%s\"], \"lent\": []}".formatted(node, node));
        LeaderLink n = joined(node);
        n.reportFacts(facts(node, "24.11.5"));
        PublishedPlan plan = n.poll(0, Duration.ofSeconds(5)).orElseThrow();
        String key = SettingsJson.STRICT
                .readTree(SettingsJson.STRICT.writeValueAsBytes(plan))
                .at("/plan/munge_key")
                .asText();
        assertTrue(key.length() > 1000);
        for (String path :
                List.of("/v1/slurm/status", "/v1/nodes", "/v1/slurm/settings", "/v1/slurm/munge-key", "/q/health")) {
            admin().get(path).then().body(not(containsString(key))).body(not(containsString(joinToken())));
        }
    }

    @Test
    void aWrongPinAWrongTokenAndAnUnknownCredentialAreRefusedWithTheFix() throws Exception {
        IOException pin =
                assertThrows(IOException.class, () -> LeaderJoin.fetchPinnedCa(base(), "sha256:" + "0".repeat(64)));
        assertTrue(pin.getMessage().contains("shows a CA whose pin is " + pki.caHash()), pin.getMessage());
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        LeaderLink.Refused token =
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, "not-the-token", "x1"));
        assertEquals(401, token.status());
        assertTrue(token.getMessage().contains("ctl slurm join-token"), token.getMessage());
        LeaderLink.Refused name =
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, joinToken(), "ALL"));
        assertEquals(400, name.status());
        LeaderLink.Refused temp = assertThrows(
                LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, joinToken(), "n1.tmp-0123456789ab"));
        assertEquals(400, temp.status(), "a name the leader's store would take for its own temporary file");
        assertTrue(
                temp.getMessage().contains("node \"n1.tmp-0123456789ab\" ends as slurmlet's temporary files do"),
                temp.getMessage());
        LeaderLink.Refused stranger = assertThrows(
                LeaderLink.Refused.class, () -> new LeaderLink(base(), ca, "forged").poll(0, Duration.ofSeconds(1)));
        assertEquals(401, stranger.status());
    }

    @Test
    void aJoinTokenIsShownOnceListedWithoutItsSecretAndRevokedAtOnce() throws Exception {
        var made = admin().contentType("application/json")
                .body("{\"ttl\": \"2h\", \"description\": \"rack 12\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(201)
                .body("ca_hash", equalTo(pki.caHash()))
                .body("command", startsWith("printf '%s\\n' "))
                .extract()
                .jsonPath();
        String id = made.getString("id");
        String secret = made.getString("token");
        assertEquals(
                "printf '%%s\\n' %s | slurmlet-agent join --leader %s --ca-hash %s --token -"
                        .formatted(secret, made.getString("leader"), pki.caHash()),
                made.getString("command"),
                "the token reaches the join on its stdin from the shell's printf: in no ps");
        assertTrue(secret.startsWith(id + "."), secret);
        java.time.Instant expires = java.time.Instant.parse(made.getString("expires"));
        assertTrue(
                Math.abs(Duration.between(java.time.Instant.now().plus(Duration.ofHours(2)), expires)
                                .toSeconds())
                        < 60,
                expires::toString);
        admin().get("/v1/join-tokens")
                .then()
                .statusCode(200)
                .body("tokens.find { it.id == '%s' }.description".formatted(id), equalTo("rack 12"))
                .body("tokens.find { it.id == '%s' }.expired".formatted(id), equalTo(false))
                .body(not(containsString(secret.substring(id.length() + 1))));
        assertFalse(
                Files.readString(STATE_DIR.resolve("join-tokens.json")).contains(secret.substring(id.length() + 1)),
                "the state keeps only the token's sha256");
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        String node = "jt" + Long.toString(System.nanoTime(), 36);
        LeaderJoin.join(base(), ca, secret, node);
        admin().delete("/v1/join-tokens/" + id).then().statusCode(200).body("revoked", equalTo(true));
        LeaderLink.Refused revoked =
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, secret, node + "b"));
        assertEquals(401, revoked.status());
        assertTrue(revoked.getMessage().contains("expired or revoked"), revoked.getMessage());
        admin().delete("/v1/join-tokens/" + id).then().statusCode(404);
        admin().contentType("application/json")
                .body("{\"ttl\": \"31d\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("ttl"));
        admin().contentType("application/json")
                .body("{\"description\": \"a\\nb\"}")
                .post("/v1/join-tokens")
                .then()
                .statusCode(400)
                .body("problems[0].key", equalTo("description"));
        io.restassured.RestAssured.given().post("/v1/join-tokens").then().statusCode(401);
    }

    @Test
    void aNameThatHasJoinedCannotBeTakenUntilAnAdminRemovesThatMachineAndAllowsItsNameAgain() throws Exception {
        String node = "id" + Long.toString(System.nanoTime(), 36);
        LeaderLink real = joined(node);
        real.reportFacts(facts(node, "24.11.5"));
        X509Certificate ca = LeaderJoin.fetchPinnedCa(base(), pki.caHash());
        // Once, any holder of the join token got n1's credential (and its plan, with the munge key).
        LeaderLink.Refused impostor =
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, joinToken(), node));
        assertEquals(409, impostor.status());
        assertTrue(impostor.getMessage().contains("ctl slurm machines remove " + node), impostor.getMessage());
        assertThrows(
                LeaderLink.Refused.class,
                () -> LeaderJoin.join(base(), ca, joinToken(), node.toUpperCase()),
                "names ignore case");
        real.reportFacts(facts(node, "24.11.6")); // the real one still works
        admin().get("/v1/machines").then().statusCode(200).body("machines", org.hamcrest.Matchers.hasItem(node));

        admin().delete("/v1/machines/" + node)
                .then()
                .statusCode(200)
                .body("credential_revoked", equalTo(true))
                .body("facts_forgotten", equalTo(true));
        LeaderLink.Refused gone =
                assertThrows(LeaderLink.Refused.class, () -> real.reportFacts(facts(node, "24.11.6")));
        assertEquals(401, gone.status());
        admin().get("/v1/nodes").then().body("containsKey('" + node + "')", equalTo(false));
        admin().delete("/v1/machines/" + node).then().statusCode(404);
        // The removal revoked the join token it joined with, and its name is refused until an admin allows it
        // (MachinesApiTest).
        assertEquals(
                401,
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, joinToken(), node))
                        .status());
        token = null;
        assertEquals(
                403,
                assertThrows(LeaderLink.Refused.class, () -> LeaderJoin.join(base(), ca, joinToken(), node))
                        .status());
        admin().post("/v1/machines/" + node + "/allow").then().statusCode(200);
        LeaderLink again = new LeaderLink(
                base(), ca, LeaderJoin.join(base(), ca, joinToken(), node).credential());
        again.reportFacts(facts(node, "24.11.6"));
    }
}
