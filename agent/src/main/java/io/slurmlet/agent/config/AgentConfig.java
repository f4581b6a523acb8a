package io.slurmlet.agent.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The agent's own configuration: {@code /etc/slurmlet/agent.yaml} (under {@code slurmlet:}), or
 * {@code SLURMLET_*} environment variables. The Slurm cluster's settings are not here: the leader
 * stores those and {@code ctl slurm set} changes them.
 */
@ConfigMapping(prefix = "slurmlet")
public interface AgentConfig {

    /** Where the agent keeps its state: the leader's settings, its token, the last plan. Root-only. */
    @WithDefault("/var/lib/slurmlet")
    Path stateDir();

    /** The leader role. */
    Leader leader();

    /** The node role: every machine's agent, the leader's included, keeps its own machine true to its plan. */
    Node node();

    /**
     * Whether this agent is the leader: {@code slurmlet.leader.enabled} when set, else whether no
     * leader to join is named ({@code slurmlet.node.leader}), so that a machine joined through
     * agent.yaml alone never also leads a cluster of its own.
     */
    default boolean isLeader() {
        return leader().enabled().orElse(node().leader().isEmpty());
    }

    interface Node {
        /** Whether this agent manages its machine. Off only for a leader that runs on no Slurm machine, and in tests. */
        @WithDefault("true")
        boolean enabled();

        /** The machine's name in the Slurm cluster. Empty: its short host name. */
        Optional<String> name();

        /** {@link #name()}, else the kernel's host name without its domain: no lookup that could hang on a resolver. */
        default String machineName() {
            return name().orElseGet(() -> {
                try {
                    return Files.readString(Path.of("/proc/sys/kernel/hostname"))
                            .strip()
                            .split("\\.")[0];
                } catch (IOException e) {
                    return System.getenv().getOrDefault("HOSTNAME", "localhost").split("\\.")[0];
                }
            });
        }

        /**
         * Where the leader's agent channel is, as {@code https://n0:7818}; with leader-eligible agents
         * (etcd), every one's, comma-separated ({@code https://n0:7818,https://n1:7818,https://n2:7818}):
         * the agent joins through, and follows, whichever leads. Empty on the leader's own machine (it
         * talks to itself at {@code https://127.0.0.1:PORT}).
         */
        Optional<String> leader();

        /**
         * The join token ({@code ctl slurm join-token} on the leader prints it), in agent.yaml (root-only):
         * needed once, until the machine has its own credential. Better in {@link #joinTokenFile()},
         * which the agent removes once it has joined; never as an environment variable (the launcher
         * moves one from an old join.env into that file), which every process it starts would be handed.
         */
        Optional<String> joinToken();

        /**
         * The file holding the join token, readable by root only ({@code slurmlet-agent join} writes it):
         * read when the machine joins, removed once it holds its own credential.
         */
        @WithDefault("/etc/slurmlet/join-token")
        Path joinTokenFile();

        /** The pin of the cluster's CA, as {@code sha256:HEX}: the agent trusts no leader whose CA differs. */
        Optional<String> caHash();

        /** A folder that stands for {@code /} for the files the agent writes; {@code /} on a real machine. */
        @WithDefault("/")
        Path root();

        /**
         * A group whose members get into this machine by ssh without a job of theirs (beside root),
         * where pam_slurm_adopt guards it (users = "slurmlet"). Empty: root only.
         */
        Optional<String> adminGroup();

        /** How often the agent checks its machine against its plan when no new plan comes. */
        @WithDefault("60s")
        Duration resync();

        /** How long the leader may hold a plan poll open. */
        @WithDefault("30s")
        Duration pollWait();
    }

    interface Leader {
        /**
         * Whether this agent is the leader: holds the settings and serves the settings API. Unset:
         * it is, unless {@code slurmlet.node.leader} names the leader this machine joins
         * ({@link AgentConfig#isLeader()}).
         */
        Optional<Boolean> enabled();

        /**
         * The file holding the admin token that every /v1 call over TCP must carry. Made at first
         * start, readable by root only. Empty: {@code admin.token} in the state directory.
         */
        Optional<Path> adminTokenFile();

        /**
         * The largest request body the settings API reads, in bytes; a larger one is refused with
         * 400. Ten thousand node names fit in well under the default.
         */
        @WithDefault("1048576")
        int maxBodyBytes();

        /**
         * The address the agents' channel (TLS only, with the leader's certificate from the cluster
         * CA) listens on. The default, every address, is because the agents must reach it and the
         * leader cannot know on which network they are; nothing on it is served before a join token
         * or an agent's credential is checked but the CA certificate, and no body is read before.
         * A site whose machines also sit on a network it does not trust sets the cluster network's
         * address here.
         */
        @WithDefault("0.0.0.0")
        String agentHost();

        /**
         * Connections the agents' channel holds open from one address at once; more are closed as
         * they open. An agent holds one or two; machines behind one NAT address count together.
         */
        @WithDefault("32")
        int agentConnectionsPerPeer();

        /**
         * Connections the agents' channel holds open in all; more are closed as they open. An agent
         * holds two (its plan poll, and the one its status went on): 10,000 machines and room to
         * spare, within the unit's 65,536 open files.
         */
        @WithDefault("24576")
        int agentConnections();

        /**
         * How long the agents' channel gives a connection for its TLS handshake and first request's
         * line and headers (from its accept), and for each later request's line and headers (from
         * its first byte), before it closes the connection. An agent sends a request's headers in one
         * write; only a client that holds a connection without using it needs more.
         */
        @WithDefault("5s")
        Duration agentHeaderTimeout();

        @WithDefault("7818")
        int agentPort();

        /**
         * Machines a second the leader expects to take back after it was away (restarted, or
         * another leader elected): each plan answer tells the agents the window their reconnections
         * spread over, the machines joined divided by this (at least 1 s). A machine that lost the
         * leader calls it again at a random moment in that window, so 10,000 do not all open their TLS
         * connections in the same second. Raise it for a leader with more CPUs to spare.
         */
        @WithDefault("200")
        int reconnectRate();

        /**
         * How often the leader takes a change of a machine's facts: 3 changes at once (a machine being
         * set up), then one an interval; a report that changes them sooner is refused with 429 and
         * Retry-After, and its agent reports them again then. Each change replans every machine. A
         * report of the facts the leader holds is never refused; 0s takes every change; at most 1h.
         */
        @WithDefault("10s")
        Duration factsChangeInterval();

        /**
         * Under {@code auth=slurm}, how long a rotation of Slurm's keys waits, beyond a token's
         * lifetime (slurm_conf's {@code AuthInfo=ttl=N}, 60 s by default), between every daemon
         * loading the new key as the one that signs and the old key being dropped: tokens signed
         * with the old key just before the switch stay valid until then.
         */
        @WithDefault("30s")
        Duration authKeyMargin();

        /** The name agents reach this leader at: the first advertised one, else the host name. */
        default String advertisedHost() {
            return advertise().orElse(List.of()).stream().findFirst().orElseGet(() -> {
                try {
                    return InetAddress.getLocalHost().getHostName();
                } catch (IOException e) {
                    return "localhost";
                }
            });
        }

        /**
         * Names and addresses agents reach the leader at, beyond those the machine has (host name,
         * every interface's address): they go into the leader's certificate. The first one is the
         * address {@code ctl slurm join-token} prints; empty: the host name.
         */
        Optional<List<String>> advertise();

        /** The platform's side of lending: the site's hooks, which the leader runs. */
        Platform platform();

        /** Where the leader keeps its settings, inventory, lending state and credentials. */
        StoreConfig store();

        /** Where the machines get enroot and pyxis from, and the digests they must have ({@code ctl slurm containers on}). */
        Containers containers();

        /**
         * For a platform that owns the accounts: a command (argv) that prints them as JSON, run
         * every {@link #accountsSyncEvery()}; accounts it no longer prints are disabled.
         */
        Optional<List<String>> accountsSync();

        @WithDefault("5m")
        Duration accountsSyncEvery();
    }

    /**
     * The leader's store: {@code file} (the default), the state directory's files, for one leader; or
     * {@code etcd}, an etcd cluster the site runs (three or five members), reached over TLS with a client
     * certificate.
     */
    interface StoreConfig {
        @WithDefault("file")
        Kind kind();

        Etcd etcd();

        enum Kind {
            FILE,
            ETCD
        }
    }

    /** An etcd cluster: its members' client URLs, the CA that signed their certificates, and this agent's certificate. */
    interface Etcd {
        /** The members' client URLs, {@code https://etcd1.example.org:2379}; every one, so that losing one loses nothing. */
        Optional<List<String>> endpoints();

        /** The key prefix slurmlet keeps everything under; another cluster of slurmlet's takes another. */
        @WithDefault("/slurmlet/")
        String prefix();

        /** The CA certificate (PEM) the members' certificates are checked against. Empty: plain http endpoints only. */
        Optional<Path> caFile();

        /**
         * Whether {@code http://} endpoints are taken: etcd without TLS, where anyone on the network
         * between the agent and etcd reads the cluster's state and whoever can write the prefix is an
         * admin (settings, credential hashes and accounts are trusted as read). Off: an http endpoint
         * is refused at start. For a test bench on loopback only.
         */
        @WithDefault("false")
        boolean insecurePlaintext();

        /** This agent's client certificate (PEM), which etcd's --client-cert-auth checks. */
        Optional<Path> certFile();

        /** The client certificate's private key (PEM, PKCS#8), readable by root only. */
        Optional<Path> keyFile();

        /** How long one request to etcd may take before it fails (a write then is not acknowledged). */
        @WithDefault("5s")
        Duration timeout();

        /**
         * The leader's lease in etcd: a leader-eligible agent whose leader stopped renewing it (its
         * process or machine died, or it lost etcd) leads once it lapsed, within this and half a second.
         * The leader stops acting a fifth of it (at least 0.5 s) before. 2 s to 60 s.
         */
        @WithDefault("5s")
        Duration lease();

        /**
         * The key that seals the cluster's CA, munge key and admin token in etcd (AES-256-GCM): a file
         * of 64 hex digits ({@code openssl rand -hex 32}), mode 0600, the same on every leader-eligible
         * machine. Needed with etcd: without it no second leader could serve the same CA and munge key.
         */
        Optional<Path> secretsKeyFile();
    }

    /**
     * The artifacts of jobs in containers: a table of pinned files (name, version, architecture,
     * format, file name, sha256, size) and a mirror that serves them. Every machine fetches its files from
     * the mirror and installs only bytes whose sha256 is the table's.
     */
    interface Containers {
        /**
         * The artifact table, JSON ({@code {"artifacts": [{"name": "enroot", "version": "4.1.2", "arch":
         * "amd64", "format": "deb", "file": "enroot_4.1.2-1_amd64.deb", "sha256": "…", "bytes": 98132}, …]}}),
         * each file's sha256 and size in bytes: a machine takes no byte more of it. Empty: this release's
         * own table, whose digests and sizes a release fills in.
         */
        Optional<Path> table();

        /**
         * The base URL every machine fetches the table's files from ({@code http://mirror.example.org/slurmlet/},
         * a file's URL being this and its name). Plain http is fine: the bytes are checked against the
         * table's digests. Empty: containers cannot be turned on.
         */
        Optional<String> mirror();

        /**
         * How long the leader gives each part (512 KiB) of a file it holds to go out to the machine
         * fetching it: a transfer whose part has not gone out by then is cut (the machine reads slower
         * than that, or not at all) and frees the machine's turn, one file at a time each, and one of
         * the leader's few; the machine fetches the file again at its next pass. The default asks at
         * least 8.5 KiB/s, so an 8 MiB file goes out within 16 minutes.
         */
        @WithDefault("60s")
        Duration partTimeout();
    }

    /**
     * The site's hooks, run by the leader as Slurm runs its ResumeProgram: an argv list, {@code {node}}
     * filled in with the node's name. None configured: a node is free for Slurm at once, and the
     * platform's at once when its last job ends.
     */
    interface Platform {
        /** Moves the platform's work off a node: exit 0 when it is free, 75 while it is still busy, else failed. */
        Optional<List<String>> drain();

        /** Gives a reclaimed node, with no job left, back to the platform: run once, exit 0 when done. */
        Optional<List<String>> release();

        /** How long a hook may run before it is killed (and counted as failed). */
        @WithDefault("10m")
        Duration hookDeadline();

        /** How long after "still busy" (75) the drain hook runs again. */
        @WithDefault("15s")
        Duration busyRetry();
    }
}
