package io.slurmlet.ctl;

import io.quarkus.picocli.runtime.annotations.TopCommand;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ctl}: the top command. Holds what every command shares (Vert.x, the environment) and
 * opens the connection to the leader for them.
 */
@TopCommand
@Command(
        name = "ctl",
        mixinStandardHelpOptions = true,
        versionProvider = CtlVersion.class,
        description = {
            "Changes the settings of slurmlet's Slurm cluster and its accounts, and shows their state.",
            "It talks to the leader's REST API."
        },
        subcommands = {SlurmCommand.class, UsersCommand.class, CompletionCommand.class, TrainingRunCommand.class},
        footerHeading = "%nThe leader:%n",
        footer = {
            "  --leader URL, else SLURMLET_LEADER, else leader: in /etc/slurmlet/ctl.yaml",
            "  (or the file SLURMLET_CTL_CONFIG names), else unix:/run/slurmlet/leader.sock.",
            "  Over TCP, the token in --token-file, else SLURMLET_TOKEN_FILE, else",
            "  token_file: in ctl.yaml, else /var/lib/slurmlet/admin.token if readable."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:refused or failed", "2:bad usage"})
public class CtlCommand implements Runnable {

    /** How often {@code --wait} asks the leader again. */
    static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(200);

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions options;

    /** What {@code -} reads ({@code ctl users import -}); tests give their own. */
    InputStream stdin = System.in;

    private final Provider<Vertx> vertx;
    private final Map<String, String> env;
    private final Duration timeout;
    private final Duration pollInterval;

    @Inject
    CtlCommand(Provider<Vertx> vertx) {
        this(vertx, System.getenv(), LeaderClient.DEFAULT_TIMEOUT, DEFAULT_POLL_INTERVAL);
    }

    /** For tests: their own Vert.x, environment, deadline and pace of {@code --wait}. */
    CtlCommand(Provider<Vertx> vertx, Map<String, String> env, Duration timeout, Duration pollInterval) {
        this.vertx = vertx;
        this.env = env;
        this.timeout = timeout;
        this.pollInterval = pollInterval;
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "name a command: slurm, users or completion");
    }

    Duration pollInterval() {
        return pollInterval;
    }

    /** The Vert.x every command shares. */
    Vertx vertx() {
        return vertx.get();
    }

    /** Finds the leader and its token (flags first), and opens a client to it. */
    Leader connect(LeaderAddress flagLeader, Path flagTokenFile) {
        LeaderResolver.Resolved target = new LeaderResolver(env).resolve(flagLeader, flagTokenFile);
        Optional<String> token = target.leader().isSocket()
                ? Optional.empty()
                : target.tokenFile().map(f -> LeaderResolver.readToken(f, target.tokenSource()));
        LeaderClient client = new LeaderClient(vertx.get(), target.leader(), target.leaderOrigin(), token, timeout);
        return new Leader(client, target);
    }
}
